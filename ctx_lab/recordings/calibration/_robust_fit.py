"""A small linear fit by least absolute deviations ``min Σ |x·β − y|`` (iteratively reweighted
least squares): the calibration's growth model. A large growth step measures a ratio better than
a small one (what the agent injected unseen weighs less in it), and a few steps that measured
something the file does not hold (a reminder the agent added, a result it truncated) must not
pull the ratios the way a squared error lets them. Pure Python: the model has at most six
columns, so the normal equations are solved directly."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["fit_l1"]

ITERATIONS = 30
RIDGE = 1e-9  # of the mean diagonal: invisible where the columns differ, an answer where not
FLOOR = 1e-3  # a residual below this share of y weighs as one of this share (no division by 0)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when the system is singular."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(rows[r][column]))
        if abs(rows[pivot][column]) < 1e-12:
            return None
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(column + 1, size):
            factor = rows[r][column] / rows[column][column]
            if factor:
                for c in range(column, size + 1):
                    rows[r][c] -= factor * rows[column][c]
    solution = [0.0] * size
    for r in range(size - 1, -1, -1):
        known = sum(rows[r][c] * solution[c] for c in range(r + 1, size))
        solution[r] = (rows[r][size] - known) / rows[r][r]
    return solution


def _weighted_least_squares(
    xs: Sequence[Sequence[float]], ys: Sequence[float], weights: Sequence[float]
) -> list[float] | None:
    size = len(xs[0])
    matrix = [[0.0] * size for _ in range(size)]
    vector = [0.0] * size
    for x, y, w in zip(xs, ys, weights, strict=True):
        for i in range(size):
            wx = w * x[i]
            vector[i] += wx * y
            row = matrix[i]
            for j in range(size):
                row[j] += wx * x[j]
    # a whisper of ridge: columns that always move together (a tool call's arguments and its
    # framing, where every call's arguments are alike) still give an answer
    scale = RIDGE * max(sum(matrix[i][i] for i in range(size)) / size, 1e-12)
    for i in range(size):
        matrix[i][i] += scale
    return _solve(matrix, vector)


def fit_l1(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> list[float] | None:
    """The coefficients ``β`` minimising ``Σ |x·β − y|`` over rows with ``y > 0`` (started from
    least squares on relative errors); None when the columns cannot be told apart."""
    rows = [(x, y) for x, y in zip(xs, ys, strict=True) if y > 0]
    if not rows or len(rows) < len(rows[0][0]):
        return None
    xs, ys = [x for x, _ in rows], [y for _, y in rows]
    base = [1.0 / (y * y) for y in ys]  # least squares on relative errors to start
    found = _weighted_least_squares(xs, ys, base)
    if found is None:
        return None
    for _ in range(ITERATIONS):
        weights = []
        for x, y in zip(xs, ys, strict=True):
            residual = abs(sum(b * v for b, v in zip(found, x, strict=True)) - y) / y
            weights.append(1.0 / (y * max(residual, FLOOR)))
        step = _weighted_least_squares(xs, ys, weights)
        if step is None:
            break
        found = step
    return found
