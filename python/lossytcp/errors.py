"""Errors raised at the Python boundary, before any work starts."""

from __future__ import annotations


class ParameterError(ValueError):
    """A parameter is out of its valid range.

    The message always names the parameter, the offending value and the valid range, so a
    user can fix the call without reading the source.
    """

    def __init__(self, name: str, value: object, valid: str) -> None:
        self.name = name
        self.value = value
        self.valid = valid
        super().__init__(f"parameter '{name}' = {value!r} is invalid: {valid}")
