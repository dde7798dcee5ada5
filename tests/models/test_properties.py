"""Invariants of every registered model, checked with hypothesis.

Convention (each model module, i.e. the module that registers the model, may define):

* ``PROPERTY_SPACE``: dict mapping parameter name -> hypothesis strategy of *valid* values. Any
  parameter left out keeps its default. Every draw must be accepted by the model. A module
  may build it lazily with a module ``__getattr__`` so importing the model never needs
  hypothesis.
* ``LOSS_PARAMETER``: the name of the parameter the throughput must not increase in (the
  loss rate, or the Good->Bad probability of a two-state channel). Leave it out if the model
  implies no such monotonicity.
* ``MONOTONE_SPACE`` (optional): the part of ``PROPERTY_SPACE`` on which the model implies
  that monotonicity, when it does not hold everywhere (PFTK's full model jumps where the
  window stops being limited, so its monotone space has no window limit). Defaults to
  ``PROPERTY_SPACE``.

A registered model without ``PROPERTY_SPACE`` fails ``test_model_declares_a_property_space``:
an uncovered model is a defect, not a skip.

Properties: (1) throughput_pps finite and >= 0, throughput_norm (where a capacity is defined)
in [0, 1], no NaN among the scalar outputs; (2) throughput non-increasing in LOSS_PARAMETER;
(3) a NaN, an infinity or a word in any parameter is rejected with a ParameterError that names
that parameter, before any work.
"""

import dataclasses
import math
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lossytcp.errors import ParameterError
from lossytcp.models import available, get

MODELS = available()
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _module(name):
    return sys.modules[get(name).compute.__module__]


def _space(name, attr="PROPERTY_SPACE"):
    mod = _module(name)
    space = getattr(mod, attr, None)
    if space is None and attr == "MONOTONE_SPACE":
        space = getattr(mod, "PROPERTY_SPACE", None)
    if space is None:
        pytest.fail(f"model {name!r} ({mod.__name__}) defines no PROPERTY_SPACE")
    return space


@pytest.mark.parametrize("name", MODELS)
def test_model_declares_a_property_space(name):
    space = _space(name)
    fields = {f.name for f in dataclasses.fields(get(name).params_type)}
    assert set(space) <= fields, f"unknown parameters in PROPERTY_SPACE: {set(space) - fields}"
    loss = getattr(_module(name), "LOSS_PARAMETER", None)
    assert loss is None or loss in fields


@pytest.mark.parametrize("name", MODELS)
@SETTINGS
@given(data=st.data())
def test_throughput_finite_and_within_capacity(name, data):
    kwargs = data.draw(st.fixed_dictionaries(_space(name)))
    res = get(name)(**kwargs)
    assert math.isfinite(res.throughput_pps) and res.throughput_pps >= 0
    if res.throughput_norm is not None:
        assert 0 <= res.throughput_norm <= 1 + 1e-9
    for key, val in res.as_dict().items():
        if isinstance(val, float):
            assert not math.isnan(val), key


MONOTONE = [n for n in MODELS if getattr(_module(n), "LOSS_PARAMETER", None)]


@pytest.mark.parametrize("name", MONOTONE)
@SETTINGS
@given(data=st.data())
def test_throughput_non_increasing_in_loss(name, data):
    space = dict(_space(name, "MONOTONE_SPACE"))
    loss = _module(name).LOSS_PARAMETER
    loss_strategy = space.pop(loss)
    kwargs = data.draw(st.fixed_dictionaries(space))
    x1 = data.draw(loss_strategy, label="loss_low")
    x2 = data.draw(loss_strategy, label="loss_high")
    assume(x1 != x2)
    lo, hi = min(x1, x2), max(x1, x2)
    t_lo = get(name)(**kwargs, **{loss: lo}).throughput_pps
    t_hi = get(name)(**kwargs, **{loss: hi}).throughput_pps
    assert t_hi <= t_lo * (1 + 1e-9) + 1e-12, (lo, hi, t_lo, t_hi)


BAD_VALUES = [float("nan"), float("inf"), "not-a-value"]


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("bad", BAD_VALUES, ids=["nan", "inf", "word"])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_bad_input_rejected_naming_the_parameter(name, bad, data):
    kwargs = data.draw(st.fixed_dictionaries(_space(name)))
    for f in dataclasses.fields(get(name).params_type):
        with pytest.raises(ParameterError) as err:
            get(name)(**{**kwargs, f.name: bad})
        assert f.name in err.value.name or f.name in str(err.value), (f.name, str(err.value))
