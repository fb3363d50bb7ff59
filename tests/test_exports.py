"""The public faces of the packages, pinned (as hypothesis asserts its strategies' ``__all__``).

Two tiers: a package's ``__all__`` is the face users import; a submodule's own ``__all__`` (e.g.
``reference.dynamic_margin.patterns``, ``reference.margins.min_norm_point``) is the second tier,
stable for ``theorems/`` and advanced users but not re-exported at the top.

A name added to or dropped from a package's ``__all__`` must be added to or dropped from here in
the same change, and every exported name must import.  The import paths the README and users rely
on (``from theorems.validate import validate, parametrize_with_checks``, ``theorems.strategies``,
``theorems.bounds.explore``) are pinned too.
"""

import importlib

import pytest

FACES = {
    "reference": {
        "ALGORITHMS", "Arithmetic", "CERTIFICATE", "DataMargin", "MAX_ITER", "Margin", "Patterns", "Result",
        "SEPARATOR", "arithmetic", "augment", "drop_zero_rows", "extend", "g_norm", "gram", "isnkpvn",
        "kernel_matrix", "load_csv", "load_data", "load_libsvm", "load_npy", "load_npz", "make_patterns", "margin", "margin_from_data", "nkp",
        "normalized_perceptron", "nvn", "pdm", "pdm_succ", "perceptron", "pfm", "project_simplex", "reflect",
        "signed_gram", "snkp", "snkpvn", "softmax", "verify_exact", "verify_margin_exact",
    },
    "theorems.validate": {
        "ALGORITHMS", "LAYERS", "CheckResult", "Case", "Failure", "Report", "validate", "parametrize_with_checks",
        "corpus", "make_case", "run_case", "evaluate", "export_cases", "write_corpus", "write_answers",
        "validate_answers", "validate_trace", "load_callable", "validate_on_data", "validate_data_answers",
    },
    "theorems.bounds": {
        "SCHEMA_VERSION", "CSV_COLUMNS", "Target", "TARGETS", "target_ids", "get_target", "evaluate_task",
        "sweep_tasks", "run_tasks", "search", "beaten", "write_csv", "write_json", "write_plot", "write_case",
        "load_case", "replay_case", "validate_case", "write_validate_case", "explore", "main", "PLOT_MISSING",
    },
    "theorems.strategies": {
        "separable_instances", "infeasible_instances", "kernel_instances", "rational_instances",
        "degenerate_instances", "instances", "planted_separable", "planted_infeasible", "random_kernel_instance",
        "rational_instance", "worked_example", "degenerate_cases", "origin_inradius", "INFEASIBLE_SHAPES",
        "lemma7_counterexample",
    },
    "theorems.instances": {"Instance"},
    "reference.margins": {
        "DEFAULT_MAX_ITER", "DEFAULT_MAX_SUBSETS", "DataMargin", "Margin", "MinNormPoint", "certified_lower",
        "certified_upper", "gordan_certificate", "lower_bound", "margin", "margin_from_data", "min_norm_point",
        "span_cut", "upper_bound",
    },
}


@pytest.mark.parametrize("module", sorted(FACES))
def test_public_face_is_pinned(module):
    mod = importlib.import_module(module)
    exported = set(mod.__all__)
    assert exported == FACES[module], (sorted(exported - FACES[module]), sorted(FACES[module] - exported))
    assert len(mod.__all__) == len(exported), "a name is listed twice in __all__"
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert not missing, missing


def test_strategies_have_one_home():
    """``theorems.strategies`` is the stable path; the code lives in ``theorems.instances.strategies``."""
    from theorems import strategies
    from theorems.instances import strategies as home

    for name in FACES["theorems.strategies"]:
        assert getattr(strategies, name) is getattr(home, name), name


def test_documented_entry_points_resolve():
    from theorems import bounds
    from theorems.validate import parametrize_with_checks, validate

    assert callable(validate) and callable(parametrize_with_checks)
    assert bounds.explore.__module__ == "theorems.bounds.sweep"
    assert bounds.evaluate_task.__module__ == "theorems.bounds.tasks"  # the one function handed to executors


def test_submodule_attributes_stay_modules():
    """``theorems.bounds.targets`` is the module (a re-exported ``targets()`` once shadowed it); no module of
    ``reference.margins`` shares its name with a function it exports."""
    import inspect

    import theorems.bounds
    import theorems.validate

    import reference.margins

    for pkg, names in ((theorems.bounds, ("targets", "tasks", "sweep", "outputs", "cli")),
                       (reference.margins, ("matrix", "bounds", "search", "facets", "driver", "data_bounds",
                                            "data_search", "data_driver")),
                       (theorems.validate, ("case", "checks", "call", "answer", "files", "schema", "report", "run"))):
        for name in names:
            assert inspect.ismodule(getattr(pkg, name)), f"{pkg.__name__}.{name}"


def test_pin_rejects_a_drifted_face(monkeypatch):
    """The pin is not vacuous: a name dropped from a face makes it fail."""
    import theorems.validate as v

    monkeypatch.setattr(v, "__all__", [n for n in v.__all__ if n != "make_case"])
    with pytest.raises(AssertionError):
        test_public_face_is_pinned("theorems.validate")


def test_algorithm_table_matches_the_reference_functions():
    """reference.algorithms.SPECS (read by the harness, the CLI and the explorer) agrees with the
    functions themselves: the data they take and their positional arguments, in order."""
    import inspect

    import reference
    from reference.algorithms import SPECS

    assert tuple(SPECS) == reference.ALGORITHMS
    for name, spec in SPECS.items():
        params = [p.name for p in inspect.signature(getattr(reference, name)).parameters.values()
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
        data = ["G"] if spec.data == "gram" else ["X", "y"]
        assert params[:len(data)] == data, name
        assert tuple(params[len(data):]) == spec.positional, name
        assert set(spec.statuses) <= set(reference.result.STATUSES) and "max_iter" in spec.statuses


def test_the_margin_functions_are_not_shadowed_by_modules():
    """``reference.margin`` and ``reference.margin_from_data`` are the functions; their code lives in
    ``reference.margins`` (no module of ``reference`` bears either name, so no importer needs
    ``sys.modules`` to reach one)."""
    from pathlib import Path

    import reference
    from reference.margins import data_driver, driver

    here = Path(reference.__file__).parent
    for name, home in (("margin", driver), ("margin_from_data", data_driver)):
        assert not (here / f"{name}.py").exists() and not (here / name).exists(), name
        assert getattr(reference, name) is getattr(home, name)
