"""The conventions of the beyond-accuracy metrics, named and validated, and the presets that
reproduce Microsoft Recommenders (``recommenders.evaluation.python_evaluation``) and RecTools
(``rectools.metrics``).

Each metric resolves its conventions from three layers: skrank's defaults for that metric,
then a preset, then the conventions passed by name. A preset entry of ``None`` means the
library has no such metric.
"""

from __future__ import annotations

from typing import Any

from .._validation import Described, Options, check_choice, param_error

__all__ = [
    "AVERAGES",
    "COUNTS",
    "COVERAGE_DENOMINATORS",
    "GINI_ITEMS",
    "LOG_BASES",
    "NORMALIZERS",
    "RECSYS_PRESETS",
    "SERENDIPITY_DEFINITIONS",
    "SHORT_LIST_RULES",
    "SIMILARITIES",
    "UNSEEN_RULES",
]

#: What catalog coverage divides the number of distinct recommended items by: the catalog
#: (RecTools ``normalize=True``), the items seen in training (Recommenders), or nothing.
COVERAGE_DENOMINATORS = ("catalog", "train_items", "none")
#: Base of the logarithms of entropy and self-information.
LOG_BASES = ("2", "e")
#: The items a Gini index runs over: the whole catalog (unrecommended items count 0, as
#: RecBole) or the recommended items only.
GINI_ITEMS = ("catalog", "recommended")
#: How an item's popularity is counted in the training interactions: rows (interactions,
#: repeats included) or distinct users.
COUNTS = ("interactions", "users")
#: What a popularity count is divided by: the number of training rows, of distinct training
#: users, or nothing.
NORMALIZERS = ("interactions", "users", "none")
#: Self-information of a recommended item that no training interaction has: 0 (Recommenders,
#: which leaves the item out of the sum but not of the count) or that of an item with one
#: interaction (RecTools).
UNSEEN_RULES = ("zero", "one")
#: How per-recommendation values are averaged: over every recommendation (micro) or per user,
#: then over users (macro).
AVERAGES = ("recommendations", "users")
#: Similarity of two items: cosine of their training co-occurrence (Recommenders' default),
#: cosine of feature vectors (Recommenders' ``item_feature_vector``), or a Hamming distance
#: on categorical features (RecTools, a distance: the number of features that differ).
SIMILARITIES = ("cooccurrence", "cosine", "hamming")
#: Intra-list diversity of a list with fewer than two items: left out of the mean
#: (Recommenders) or 0 (RecTools).
SHORT_LIST_RULES = ("exclude", "zero")
#: Serendipity: relevance times dissimilarity to the user's training items (Recommenders), or
#: relevance times how much higher the list ranks the item than its popularity ranks it
#: (RecTools, Kotkov et al.).
SERENDIPITY_DEFINITIONS = ("dissimilarity", "popularity_rank")
#: Names accepted by ``preset=``.
RECSYS_PRESETS = ("recommenders", "rectools")

_CHOICES: dict[str, tuple[str, ...]] = {
    "denominator": COVERAGE_DENOMINATORS,
    "log_base": LOG_BASES,
    "gini_items": GINI_ITEMS,
    "count": COUNTS,
    "normalizer": NORMALIZERS,
    "unseen": UNSEEN_RULES,
    "average": AVERAGES,
    "similarity": SIMILARITIES,
    "short_lists": SHORT_LIST_RULES,
    "definition": SERENDIPITY_DEFINITIONS,
}

# the metrics, with skrank's defaults (every convention each one has)
_DEFAULTS: dict[str, dict[str, str]] = {
    "catalog_coverage": {"denominator": "catalog"},
    "distributional_coverage": {"log_base": "2"},
    "gini_index": {"gini_items": "catalog"},
    "average_popularity": {"count": "interactions", "normalizer": "none",
                           "average": "users"},
    "novelty": {"count": "users", "normalizer": "users", "unseen": "one",
                "average": "users", "log_base": "2"},
    "intra_list_diversity": {"similarity": "cooccurrence", "short_lists": "exclude"},
    "serendipity": {"definition": "dissimilarity", "similarity": "cooccurrence"},
}

# what each library does (measured: tests/recsys/generate_references.py)
_PRESETS: dict[str, dict[str, dict[str, str] | None]] = {
    "recommenders": {
        "catalog_coverage": {"denominator": "train_items"},
        "distributional_coverage": {"log_base": "2"},
        "gini_index": None,
        "average_popularity": None,
        # historical_item_novelty: -log2(rows of the item / rows of train); novelty():
        # sum over recommended items seen in training of count * novelty / all rows
        "novelty": {"count": "interactions", "normalizer": "interactions",
                    "unseen": "zero", "average": "recommendations", "log_base": "2"},
        "intra_list_diversity": {"similarity": "cooccurrence", "short_lists": "exclude"},
        "serendipity": {"definition": "dissimilarity", "similarity": "cooccurrence"},
    },
    "rectools": {
        "catalog_coverage": {"denominator": "catalog"},
        "distributional_coverage": None,
        "gini_index": None,
        "average_popularity": {"count": "interactions", "normalizer": "none",
                               "average": "users"},
        # MeanInvUserFreq: -log2(distinct users of the item / distinct users), unseen = 1 user
        "novelty": {"count": "users", "normalizer": "users", "unseen": "one",
                    "average": "users", "log_base": "2"},
        "intra_list_diversity": {"similarity": "hamming", "short_lists": "zero"},
        "serendipity": {"definition": "popularity_rank"},
    },
}


def declared(*names: str, **narrowed: tuple[str, ...]) -> dict[str, Described]:
    """What a metric declares for ``preset`` and the conventions it takes by name: None (not
    given) or a valid value, in the words of :func:`resolve`'s messages. ``narrowed`` gives a
    convention whose values this metric takes from fewer than the whole set."""
    out = {}
    for name in names:
        choices = narrowed.get(name) or (RECSYS_PRESETS if name == "preset" else _CHOICES[name])
        rule = Options(choices)
        out[name] = Described(rule.text, rule, None)
    return out


def resolve(metric: str, preset: str | None, caller: str, **given: Any) -> dict[str, str]:
    """The conventions of one call: defaults of ``metric``, then ``preset``, then ``given``.

    Returns a dict holding exactly the conventions the metric has.
    """
    values = dict(_DEFAULTS[metric])
    if preset is not None:
        check_choice("preset", preset, RECSYS_PRESETS, caller)
        entry = _PRESETS[preset][metric]
        if entry is None:
            others = [p for p in RECSYS_PRESETS if _PRESETS[p][metric] is not None]
            allowed = " or ".join(repr(p) for p in others) or "None"
            raise param_error("preset", f"{allowed} or None: {preset} has no {caller}",
                              preset, caller)
        values.update(entry)
    for name, value in given.items():
        if value is None:
            continue
        if name not in values:
            raise param_error(name, f"None: {caller} has no {name!r} convention", value, caller)
        values[name] = check_choice(name, value, _CHOICES[name], caller)
    return values
