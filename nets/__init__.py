"""The torch side of the project: model, input planes, evaluator, data, training.

Nothing outside this package imports torch.
"""
