"""Fitting the evaluation network in numpy: forward, backward, Adam, early stopping.

The model is exactly the kernel's network (:mod:`doublecorner.kernel.network`):
inputs -> HIDDEN (clipped ReLU), with the position features beside it -> per-bucket
L2 (clipped ReLU) -> 1. Its output is a logit; the loss is the cross-entropy
between ``sigmoid(output)`` and the target expectation. Each batch is grouped
by bucket, so each layer set sees only its own positions. The parameters live
in the kernel's flat layout throughout, so export is a copy.

Training is seeded (initial weights, shuffles, split), keeps the parameters
of the epoch with the lowest validation loss, halves the step size when the
validation loss stops falling, and stops after ``patience`` epochs without
improvement.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from doublecorner.kernel import network as layout
from doublecorner.kernel.network import BUCKETS, HIDDEN, INPUTS, L2, L2_INPUTS, PARAMETERS
from doublecorner.train.dataset import Dataset


@dataclass(frozen=True, slots=True, kw_only=True)
class FitConfig:
    epochs: int = 30
    batch_size: int = 4096
    learning_rate: float = 1e-3
    patience: int = 3
    seed: int = 1


@dataclass(slots=True)
class EpochReport:
    """One epoch's losses, step size and time.

    Epoch 0 is the starting weights: its training loss is NaN, nothing having
    been trained on yet (the provenance records null; ``train fit`` prints
    "the starting weights").
    """

    epoch: int
    training_loss: float
    validation_loss: float
    learning_rate: float
    seconds: float


@dataclass(slots=True)
class FitResult:
    parameters: np.ndarray
    epochs: list[EpochReport] = field(default_factory=list)
    best_epoch: int = 0

    @property
    def best_validation_loss(self) -> float:
        return min(report.validation_loss for report in self.epochs)


class _Views:
    """Shaped views of the flat parameter array (writes go through to it)."""

    def __init__(self, flat: np.ndarray) -> None:
        self.ft_weights = flat[layout.FT_WEIGHTS:layout.FT_BIAS].reshape(INPUTS, HIDDEN)
        self.ft_bias = flat[layout.FT_BIAS:layout.L2_WEIGHTS]
        self.l2_weights = flat[layout.L2_WEIGHTS:layout.L2_BIAS].reshape(BUCKETS, L2_INPUTS, L2)
        self.l2_bias = flat[layout.L2_BIAS:layout.OUT_WEIGHTS].reshape(BUCKETS, L2)
        self.out_weights = flat[layout.OUT_WEIGHTS:layout.OUT_BIAS].reshape(BUCKETS, L2)
        self.out_bias = flat[layout.OUT_BIAS:layout.PARAMETERS]


def initial_parameters(seed: int) -> np.ndarray:
    """Seeded starting weights: the clipped ReLUs start in their sloped range."""
    chance = np.random.default_rng(seed)
    flat = np.zeros(PARAMETERS, np.float32)
    views = _Views(flat)
    views.ft_weights[:] = chance.normal(0, 1 / math.sqrt(24), (INPUTS, HIDDEN))
    views.ft_bias[:] = 0.5
    views.l2_weights[:] = chance.normal(0, 1 / math.sqrt(HIDDEN), (BUCKETS, L2_INPUTS, L2))
    views.l2_bias[:] = 0.25
    views.out_weights[:] = chance.normal(0, 0.1, (BUCKETS, L2))
    return flat


def _clip(values: np.ndarray) -> np.ndarray:
    clipped: np.ndarray = np.clip(values, 0.0, 1.0)
    return clipped


def _slope(values: np.ndarray) -> np.ndarray:
    return ((values > 0.0) & (values < 1.0)).astype(np.float32)


def forward(flat: np.ndarray, inputs: np.ndarray, features: np.ndarray,
            bucket: np.ndarray) -> np.ndarray:
    """The network's output logits for a batch of input rows and their position features."""
    return _forward_backward(flat, inputs, features, bucket, None)[0]


def loss_and_gradient(flat: np.ndarray, inputs: np.ndarray, features: np.ndarray,
                      bucket: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean cross-entropy of a batch and its gradient, in the flat layout."""
    output, gradient = _forward_backward(flat, inputs, features, bucket, target)
    return cross_entropy(output, target), gradient


def cross_entropy(output: np.ndarray, target: np.ndarray) -> float:
    # log(1 + e^x) - t x, written to stay finite for large |x|.
    softplus = np.logaddexp(0.0, output.astype(np.float64))
    return float(np.mean(softplus - target * output))


def _forward_backward(flat: np.ndarray, inputs: np.ndarray, features: np.ndarray,
                      bucket: np.ndarray, target: np.ndarray | None
                      ) -> tuple[np.ndarray, np.ndarray]:
    views = _Views(flat)
    first = inputs @ views.ft_weights + views.ft_bias
    hidden1 = np.concatenate([_clip(first), features], axis=1)
    output = np.empty(len(inputs), np.float32)
    gradient = np.zeros(PARAMETERS, np.float32)
    grads = _Views(gradient)
    d_hidden1 = np.zeros_like(first) if target is not None else None
    for b in range(BUCKETS):
        rows = np.flatnonzero(bucket == b)
        if len(rows) == 0:
            continue
        h1 = hidden1[rows]
        a2 = h1 @ views.l2_weights[b] + views.l2_bias[b]
        h2 = _clip(a2)
        out = h2 @ views.out_weights[b] + views.out_bias[b]
        output[rows] = out
        if target is None or d_hidden1 is None:
            continue
        d_out = (1 / (1 + np.exp(-out)) - target[rows]) / len(inputs)
        grads.out_weights[b] = h2.T @ d_out
        grads.out_bias[b] = d_out.sum()
        d_a2 = np.outer(d_out, views.out_weights[b]) * _slope(a2)
        grads.l2_weights[b] = h1.T @ d_a2
        grads.l2_bias[b] = d_a2.sum(axis=0)
        d_hidden1[rows] = d_a2 @ views.l2_weights[b, :HIDDEN].T
    if target is not None and d_hidden1 is not None:
        d_first = d_hidden1 * _slope(first)
        grads.ft_weights[:] = inputs.T @ d_first
        grads.ft_bias[:] = d_first.sum(axis=0)
    return output, gradient


class Adam:
    """Adam over one flat parameter array."""

    def __init__(self, size: int, learning_rate: float, *, beta1: float = 0.9,
                 beta2: float = 0.999, epsilon: float = 1e-8) -> None:
        self.learning_rate = learning_rate
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.first = np.zeros(size, np.float32)
        self.second = np.zeros(size, np.float32)
        self.steps = 0

    def step(self, parameters: np.ndarray, gradient: np.ndarray) -> None:
        self.steps += 1
        self.first *= self.beta1
        self.first += (1 - self.beta1) * gradient
        self.second *= self.beta2
        self.second += (1 - self.beta2) * gradient * gradient
        corrected = self.learning_rate * math.sqrt(1 - self.beta2 ** self.steps) / (
            1 - self.beta1 ** self.steps)
        parameters -= (corrected * self.first / (np.sqrt(self.second) + self.epsilon)).astype(
            np.float32)


def evaluate_loss(flat: np.ndarray, data: Dataset, batch_size: int) -> float:
    """The mean cross-entropy over a whole dataset."""
    total = 0.0
    for start in range(0, len(data), batch_size):
        rows = slice(start, start + batch_size)
        output = forward(flat, data.inputs(rows), data.features[rows], data.bucket[rows])
        total += cross_entropy(output, data.target[rows]) * len(output)
    return total / max(len(data), 1)


def fit(training: Dataset, validation: Dataset, config: FitConfig, *,
        start: np.ndarray | None = None,
        on_epoch: Callable[[EpochReport], None] | None = None,
        on_batch: Callable[[int, int], None] | None = None) -> FitResult:
    """Train from ``start`` (or seeded fresh weights); the best epoch's parameters win."""
    parameters = (initial_parameters(config.seed) if start is None
                  else start.astype(np.float32).copy())
    optimiser = Adam(PARAMETERS, config.learning_rate)
    chance = np.random.default_rng(config.seed)
    result = FitResult(parameters.copy())
    best = evaluate_loss(parameters, validation, config.batch_size)
    result.epochs.append(EpochReport(0, math.nan, best, config.learning_rate, 0.0))
    if on_epoch is not None:
        on_epoch(result.epochs[-1])
    stale = 0
    batches = -(-len(training) // config.batch_size)
    for epoch in range(1, config.epochs + 1):
        started = time.monotonic()
        order = chance.permutation(len(training))
        total = 0.0
        for number, start_row in enumerate(range(0, len(training), config.batch_size)):
            rows = order[start_row:start_row + config.batch_size]
            loss, gradient = loss_and_gradient(parameters, training.inputs(rows),
                                               training.features[rows], training.bucket[rows],
                                               training.target[rows])
            optimiser.step(parameters, gradient)
            total += loss * len(rows)
            if on_batch is not None:
                on_batch(number + 1, batches)
        validation_loss = evaluate_loss(parameters, validation, config.batch_size)
        report = EpochReport(epoch, total / len(training), validation_loss,
                             optimiser.learning_rate, time.monotonic() - started)
        result.epochs.append(report)
        if on_epoch is not None:
            on_epoch(report)
        if validation_loss < best - 1e-6:
            best = validation_loss
            result.parameters = parameters.copy()
            result.best_epoch = epoch
            stale = 0
        else:
            stale += 1
            optimiser.learning_rate /= 2
            if stale >= config.patience:
                break
    return result
