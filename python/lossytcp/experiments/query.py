"""Row filters for ``lossytcp results --where`` and ``Store.runs(where=...)``: parsed, never
evaluated.

A filter is a boolean expression over the table's columns::

    variant == 'sack' and alpha < 0.01
    not (seed in [1, 2]) or 0.01 <= p < 0.03
    `pftk: throughput_pps` > 100            (backquotes around a name that is not a word)

Allowed: column names, literals (numbers, strings, ``True``, ``False``, ``None``), lists or
tuples of literals after ``in`` / ``not in``, comparisons (``==``, ``!=``, ``<``, ``<=``,
``>``, ``>=``, chained as ``a < x < b``), ``and``, ``or``, ``not``, unary minus and
parentheses. Nothing else: no calls, attributes, subscripts, arithmetic, or the ``@``
references of :meth:`pandas.DataFrame.query`, which reach Python objects (issue 24:
``--where "@pd.io.common.os.system('...')"`` ran a shell command). The expression is
parsed with :mod:`ast` and the tree walked against this whitelist; the mask is then
computed with pandas' comparison operators on the columns, so nothing the user wrote is
ever executed.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..errors import ParameterError

__all__ = ["mask", "parse"]

_COMPARE = {ast.Eq: "__eq__", ast.NotEq: "__ne__", ast.Lt: "__lt__", ast.LtE: "__le__",
            ast.Gt: "__gt__", ast.GtE: "__ge__"}
_BACKQUOTED = re.compile(r"`([^`]*)`")
_MAX_CHARS = 2000

#: What the error message says is allowed.
ALLOWED = ("column names, literals (numbers, 'text', True, False, None), comparisons "
           "(== != < <= > >=, chained), 'in' / 'not in' a [list] of literals, and, or, not, "
           "parentheses; a column whose name is not a word in `backquotes`")


def _refuse(where: str, what: str) -> ParameterError:
    return ParameterError("where", where, f"{what} is not allowed; a filter may use "
                          f"{ALLOWED}")


def parse(where: str) -> tuple[ast.expr, dict[str, str]]:
    """The checked syntax tree of a filter and the names standing for backquoted columns."""
    if not isinstance(where, str) or not where.strip():
        raise ParameterError("where", where, "must be a non-empty filter such as "
                             "\"variant == 'sack' and alpha < 0.01\"")
    if len(where) > _MAX_CHARS:
        raise ParameterError("where", where, f"must be at most {_MAX_CHARS} characters")
    names: dict[str, str] = {}

    def name_for(m: re.Match[str]) -> str:
        alias = f"__col{len(names)}__"
        names[alias] = m.group(1)
        return alias

    text = _BACKQUOTED.sub(name_for, where.strip())
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        bad = "@" if "@" in text else None
        if bad:
            raise _refuse(where, "'@' (a reference to a Python variable)") from None
        raise ParameterError("where", where, f"is not a valid filter ({e.msg}); a filter may "
                             f"use {ALLOWED}") from None
    _check(tree.body, where, top=True)
    return tree.body, names


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None or isinstance(node.value, (bool, int, float, str))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value,
                                                                      (int, float))
    return False


def _check(node: ast.AST, where: str, top: bool = False) -> None:
    if isinstance(node, ast.BoolOp):
        for v in node.values:
            _check(v, where)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _check(node.operand, where)
    elif isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            right = operands[i + 1]
            if isinstance(op, (ast.In, ast.NotIn)):
                if not (isinstance(right, (ast.List, ast.Tuple))
                        and all(_literal(x) for x in right.elts)):
                    raise _refuse(where, f"'{ast.unparse(right)}' after 'in'")
                if not isinstance(operands[i], ast.Name) or i + 1 != len(node.ops):
                    raise _refuse(where, "'in' other than 'column in [literals]'")
            elif type(op) not in _COMPARE:
                raise _refuse(where, f"the comparison '{type(op).__name__}'")
            else:
                _operand(right, where)
        _operand(node.left, where)
    elif isinstance(node, ast.Name):
        pass                         # a boolean column
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        pass
    else:
        raise _refuse(where, _describe(node))


def _operand(node: ast.AST, where: str) -> None:
    if isinstance(node, ast.Name) or _literal(node):
        return
    if isinstance(node, (ast.List, ast.Tuple)):
        raise _refuse(where, "a list other than after 'in'")
    raise _refuse(where, _describe(node))


def _describe(node: ast.AST) -> str:
    kinds = {ast.Call: "a call", ast.Attribute: "attribute access", ast.Subscript:
             "a subscript", ast.BinOp: "arithmetic", ast.Lambda: "a lambda",
             ast.NamedExpr: "an assignment", ast.IfExp: "a conditional expression",
             ast.Starred: "unpacking", ast.JoinedStr: "an f-string", ast.Await: "await",
             ast.Dict: "a dict", ast.Set: "a set", ast.ListComp: "a comprehension",
             ast.GeneratorExp: "a comprehension", ast.DictComp: "a comprehension",
             ast.SetComp: "a comprehension"}
    what = next((v for k, v in kinds.items() if isinstance(node, k)),
                type(node).__name__)
    try:
        return f"{what} ('{ast.unparse(node)}')"
    except Exception:  # noqa: BLE001 - the description is only for the message
        return what


def mask(df: Any, where: str) -> Any:
    """The boolean Series of the rows of ``df`` matching the filter ``where``."""
    import pandas as pd

    tree, names = parse(where)

    def column(node: ast.Name) -> Any:
        col = names.get(node.id, node.id)
        if col not in df.columns:
            cols = ", ".join(str(c) for c in df.columns)
            raise ParameterError("where", where, f"names no column '{col}'; the columns are "
                                 f"{cols}")
        return df[col]

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            return column(node)
        return ast.literal_eval(node)

    def as_mask(x: Any, node: ast.AST) -> Any:
        if isinstance(x, bool):
            return pd.Series(x, index=df.index)
        if not pd.api.types.is_bool_dtype(x):
            raise ParameterError("where", where, f"'{ast.unparse(node)}' is not true or false "
                                 "for each row (compare it: column == value)")
        return x

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.BoolOp):
            parts = [as_mask(ev(v), v) for v in node.values]
            out = parts[0]
            for p in parts[1:]:
                out = (out & p) if isinstance(node.op, ast.And) else (out | p)
            return out
        if isinstance(node, ast.UnaryOp):
            return ~as_mask(ev(node.operand), node.operand)
        if isinstance(node, ast.Compare):
            out = None
            left = value(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                if isinstance(op, (ast.In, ast.NotIn)):
                    vals = list(ast.literal_eval(right_node))
                    m = left.isin(vals)
                    m = ~m if isinstance(op, ast.NotIn) else m
                else:
                    right = value(right_node)
                    try:
                        m = getattr(left, _COMPARE[type(op)])(right) if isinstance(
                            left, pd.Series) else getattr(right, _COMPARE[_FLIP[type(op)]])(left)
                    except TypeError as e:
                        raise ParameterError("where", where, f"cannot compare in "
                                             f"'{ast.unparse(node)}' ({e})") from None
                    if m is NotImplemented or not isinstance(m, pd.Series):
                        m = pd.Series(bool(m) if m is not NotImplemented else False,
                                      index=df.index)
                    left = right
                out = m if out is None else out & m
            return out
        if isinstance(node, ast.Name):
            return column(node)
        return ast.literal_eval(node)

    return as_mask(ev(tree), tree).fillna(False).astype(bool)


_FLIP = {ast.Eq: ast.Eq, ast.NotEq: ast.NotEq, ast.Lt: ast.Gt, ast.LtE: ast.GtE,
         ast.Gt: ast.Lt, ast.GtE: ast.LtE}
