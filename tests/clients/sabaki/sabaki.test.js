// Drives gtp_main.py exactly as Sabaki does, through Sabaki's own GTP
// library (@sabaki/gtp): attach commands, ControllerStateTracker sync
// (komi before boardsize, clear_board, pipelined plays, undo path),
// genmove_analyze (move read from the `play` line), and `analyze` streamed
// for about a second, then aborted with `protocol_version` (sendAbort),
// with the info lines parsed the way Sabaki's analysis.js parses them;
// then kata-analyze with ownership, with KataGo's other options ended by
// `stop`, and kata-genmove_analyze (KataGo mode).
//
//   cd tests/clients/sabaki && npm ci && node --test
'use strict'

const test = require('node:test')
const assert = require('node:assert')
const path = require('node:path')
const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const ROOT = path.resolve(__dirname, '..', '..', '..')
const PYTHON = process.env.GOMCTS_PYTHON || path.join(ROOT, '.venv', 'bin', 'python')
const ARGS = [
  path.join(ROOT, 'gtp_main.py'),
  '--log-level', 'WARNING',
  '--set', 'search.playouts=200',
  '--set', 'player.score_playouts=50',
  '--set', 'prior.evaluator=none'
]

// Sabaki's parser (src/modules/analysis.js, described in shared/clients.md):
// split on "info", key/value pairs up to "pv", the PV is the trailing run of
// vertices cut at the first pass; `move` must be a board vertex, `winrate`
// is required; integer winrates are percent*100.
function parseAnalysis(line, floatWinrate = false) {
  return line
    .split(/\s*info\s+/)
    .slice(1)
    .map(x => x.trim())
    .map(x => {
      let matchPV = x.match(/(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*\s*$/)
      if (matchPV == null) return null
      let passIndex = matchPV[0].search(/\bpass\b/)
      let pvText = passIndex < 0 ? matchPV[0] : matchPV[0].slice(0, passIndex)
      let keys = x.slice(0, matchPV.index).trim().split(/\s+/)
      let obj = {}
      for (let i = 0; i + 1 < keys.length; i += 2) obj[keys[i]] = keys[i + 1]
      if (obj.pv !== undefined) delete obj.pv
      let winrate = obj.winrate
      if (obj.move == null || winrate == null) return null
      if (!/^[A-Za-z]\d+$/.test(obj.move)) return null
      let wr = floatWinrate || winrate.includes('.') ? +winrate * 100 : +winrate / 100
      return {
        move: obj.move,
        visits: +obj.visits,
        winrate: wr,
        prior: obj.prior != null ? +obj.prior : null,
        lcb: obj.lcb != null ? +obj.lcb : null,
        order: obj.order != null ? +obj.order : null,
        scoreLead: obj.scoreLead != null ? +obj.scoreLead : null,
        pv: pvText.trim().split(/\s+/).filter(v => v !== ''),
        rawWinrate: winrate
      }
    })
    .filter(x => x != null)
}

const sleep = ms => new Promise(r => setTimeout(r, ms))
const play = (c, v) => ({name: 'play', args: [c, v]})

test('Sabaki attach, sync, genmove_analyze, analyze', {timeout: 90000}, async () => {
  let controller = new Controller(PYTHON, ARGS, {cwd: ROOT})
  let stderr = ''
  controller.on('stderr', ({content}) => (stderr += content + '\n'))
  let tracker = new ControllerStateTracker(controller)
  controller.start()

  try {
    // Attach: pipelined, no ids.
    let [name, version, protocol, list] = await Promise.all(
      ['name', 'version', 'protocol_version', 'list_commands'].map(n =>
        controller.sendCommand({name: n})
      )
    )
    assert.strictEqual(name.error, false)
    assert.strictEqual(name.content, 'gomcts')
    assert.ok(version.content.length > 0)
    assert.strictEqual(protocol.content, '2')
    let commands = list.content.split('\n').map(x => x.trim())
    for (let c of ['undo', 'lz-analyze', 'kata-analyze', 'lz-genmove_analyze', 'kata-genmove_analyze'])
      assert.ok(commands.includes(c), `${c} listed`)
    // Sabaki's choice: the first listed of these.  analyze and genmove_analyze
    // are known but not listed, so Sabaki picks KataGo's commands, whose
    // info lines carry score leads
    let sabakiGenmove = ['genmove_analyze', 'kata-genmove_analyze', 'lz-genmove_analyze'].find(c =>
      commands.includes(c)
    )
    let sabakiAnalyze = ['analyze', 'kata-analyze', 'lz-analyze'].find(c => commands.includes(c))
    assert.strictEqual(sabakiGenmove, 'kata-genmove_analyze')
    assert.strictEqual(sabakiAnalyze, 'kata-analyze')
    for (let c of ['analyze', 'genmove_analyze']) {
      let known = await controller.sendCommand({name: 'known_command', args: [c]})
      assert.strictEqual(known.content, 'true', `${c} known`)
    }
    // the Leela Zero forms still answer (other clients send them)
    let genmoveCmd = 'genmove_analyze'
    let analyzeCmd = 'analyze'

    // Sync: komi (before boardsize), boardsize, clear_board, plays; setup
    // stones arrive as plays, so consecutive same-colour plays occur.
    let history = [play('B', 'C3'), play('B', 'G7'), play('W', 'E5'), play('B', 'D4'), play('W', 'pass')]
    await tracker.sync({komi: 6.5, boardsize: [9, 9], history})
    assert.deepStrictEqual(tracker.state.boardsize, [9, 9])
    assert.strictEqual(tracker.state.komi, 6.5)
    assert.strictEqual(tracker.state.history.length, 5)

    // Move generation the Sabaki way: move from the `play` line.
    let res = await controller.sendCommand({name: genmoveCmd, args: ['B', '50']})
    assert.strictEqual(res.error, false)
    let m = res.content.match(/(?:^|\n)play\s+(\S+)\s*$/)
    assert.ok(m, `genmove_analyze ends with a play line: ${JSON.stringify(res.content)}`)
    assert.match(m[1], /^([A-HJ]\d|pass|resign)$/i)

    // Let the state tracker settle, then sync a history that drops the last
    // two moves and adds one: the incremental path (undo x k, then plays).
    await sleep(200)
    let shorter = [play('B', 'C3'), play('B', 'G7'), play('W', 'E5'), play('W', 'F6')]
    await tracker.sync({komi: 6.5, boardsize: [9, 9], history: shorter})
    let sgf = await controller.sendCommand({name: 'printsgf'})
    assert.strictEqual(sgf.error, false)
    assert.ok(sgf.content.includes('W[fd]'), sgf.content)   // F6
    assert.ok(!sgf.content.includes('B[df]'), sgf.content) // D4 undone

    // Analysis: `analyze B 50`, ~1 s of info lines, then Sabaki's abort.
    let lines = []
    let first = null
    let analysis = controller.sendCommand({name: analyzeCmd, args: ['B', '50']}, ({line}) => {
      if (first == null) first = line
      if (line.startsWith('info ')) lines.push(line)
    })
    await sleep(1200)
    let abort = controller.sendCommand({name: 'protocol_version'})
    let ares = await analysis
    let pres = await abort
    assert.strictEqual(ares.error, false)
    assert.strictEqual(first, '=')
    assert.strictEqual(pres.content, '2')
    assert.ok(lines.length >= 1, `got ${lines.length} info lines in 1.2 s`)
    let parsed = parseAnalysis(lines[lines.length - 1])
    assert.ok(parsed.length > 0, lines[lines.length - 1])
    for (let v of parsed) {
      assert.match(v.move, /^[A-HJ]\d$/)
      assert.ok(Number.isInteger(+v.rawWinrate), 'integer winrate for analyze')
      assert.ok(v.winrate >= 0 && v.winrate <= 100)
      assert.ok(v.visits >= 0)
      assert.ok(v.pv.length >= 1 && v.pv[0] === v.move)
      assert.ok(v.prior >= 0 && v.prior <= 10000 && v.lcb >= 0 && v.lcb <= 10000)
    }
    let orders = parsed.map(v => v.order)
    assert.deepStrictEqual(orders, [...orders].sort((a, b) => a - b))

    // lz-analyze too (Lizzie and older Sabaki), then a normal command.
    let lz = []
    let lzp = controller.sendCommand({name: 'lz-analyze', args: ['W', '10']}, ({line}) => {
      if (line.startsWith('info ')) lz.push(line)
    })
    await sleep(400)
    let nameAgain = controller.sendCommand({name: 'name'})
    await lzp
    assert.strictEqual((await nameAgain).content, 'gomcts')
    assert.ok(lz.length >= 1 && parseAnalysis(lz[0]).length > 0)

    // KataGo mode (Sabaki with kata-analyze, Lizzie, KaTrain): float
    // winrates, score fields, and `ownership true`: the ownership values
    // follow the infos on the same line, as KataGo writes them; a client
    // splits them off before parsing the infos.
    let kata = []
    let kp = controller.sendCommand({name: 'kata-analyze', args: ['B', '10', 'ownership', 'true']}, ({line}) => {
      if (line.startsWith('info ')) kata.push(line)
    })
    await sleep(1200)
    let abort2 = controller.sendCommand({name: 'protocol_version'})
    assert.strictEqual((await kp).error, false)
    assert.strictEqual((await abort2).content, '2')
    assert.ok(kata.length >= 1, 'kata-analyze info lines')
    for (let line of kata) {
      let [infos, own] = line.split(/\s+ownership\s+/)
      let values = own.trim().split(/\s+/).map(Number)
      assert.strictEqual(values.length, 81)
      assert.ok(values.every(v => v >= -1 && v <= 1))
      let parsed = parseAnalysis(infos, true)
      assert.ok(parsed.length > 0, infos)
      for (let v of parsed) {
        assert.ok(v.rawWinrate.includes('.') || v.rawWinrate === '0' || v.rawWinrate === '1')
        assert.ok(v.winrate >= 0 && v.winrate <= 100)
        assert.ok(Number.isFinite(v.scoreLead), 'scoreLead')
      }
    }

    // KataGo's options that Lizzie forks send (pvVisits, rootInfo; the
    // others are accepted and ignored), ended with KataGo's `stop`.
    let kopt = []
    let kop = controller.sendCommand(
      {name: 'kata-analyze', args: ['W', '10', 'pvVisits', 'true', 'rootInfo', 'true', 'movesOwnership', 'true',
                                     'ownershipStdev', 'true', 'pvEdgeVisits', 'true']},
      ({line}) => {
        if (line.startsWith('info ')) kopt.push(line)
      }
    )
    await sleep(800)
    let stop = controller.sendCommand({name: 'stop'})
    assert.strictEqual((await kop).error, false)
    let sres = await stop
    assert.strictEqual(sres.error, false)
    assert.strictEqual(sres.content, '')
    assert.ok(kopt.length >= 1, 'kata-analyze with KataGo options streams')
    let lastOpt = kopt[kopt.length - 1]
    assert.match(lastOpt, / pvVisits \d+/)
    assert.match(lastOpt, / rootInfo visits \d+ utility \S+ winrate \S+/)
    assert.match(lastOpt, / pvEdgeVisits \d+/)
    // a client that asks for pvVisits and pvEdgeVisits reads them off before the PV
    // (Sabaki's own parser, which never asks, takes the trailing vertices as the PV)
    let plain = lastOpt.split(/\s+rootInfo\s+/)[0].replace(/ (pvVisits|pvEdgeVisits)( \d+)+/g, '')
    assert.ok(parseAnalysis(plain, true).length > 0, lastOpt)

    // kata-genmove_analyze: info lines while it searches, then `play`.
    let kg = []
    let kres = await controller.sendCommand({name: 'kata-genmove_analyze', args: ['B', '10']}, ({line}) => {
      if (line.startsWith('info ')) kg.push(line)
    })
    assert.strictEqual(kres.error, false)
    let km = kres.content.match(/(?:^|\n)play\s+(\S+)\s*$/)
    assert.ok(km, `kata-genmove_analyze ends with a play line: ${JSON.stringify(kres.content)}`)
    assert.match(km[1], /^([A-HJ]\d|pass|resign)$/i)
    assert.ok(kg.length >= 1 && kg.every(l => parseAnalysis(l, true).length > 0))
  } finally {
    // Detach: quit, kill after 3000 ms (gtp.engine_quit_timeout).
    await controller.stop(3000)
  }
  assert.ok(!/Traceback/.test(stderr), stderr)
})
