"""Compiled core: the Go board, rollout policies, NN input planes.

Knows Go and nothing else; imports no Python package of the project.
"""
