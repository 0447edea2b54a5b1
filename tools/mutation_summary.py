"""Kill rate per module of the last ``mutmut run`` (docs/mutation-testing.md).

    nice -n 19 mutmut run --max-children 2        # configured in pyproject.toml
    python tools/mutation_summary.py [--survivors]

Reads ``mutmut results --all true`` and prints, per mutated module, how many mutants
were killed (a test failed, or the run timed out: an endless loop counts as caught),
how many survived, how many no selected test reaches, and the kill rate over the
mutants that are not judged equivalent (:data:`EQUIVALENT`, each with its reason; the
class store's by rule, ``tools/class_store_equivalents.py``).
Mutant names carry their number within a function, so the list belongs to the code
of the commit that wrote it; a name that no longer survives is simply not counted.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys

# the class store's equivalents are judged by rule, from each survivor's own change
import class_store_equivalents

#: survivors judged equivalent: no input the lab can give tells them from the original
#: (mutant names of commit f3698a7; see docs/mutation-testing.md). A timeout of one of
#: these (the machine loaded) is not counted as a kill.
_EQUIVALENT_GROUPS: dict[str, tuple[str, ...]] = {
    ('dtype=float → dtype=None/omitted: the arrays are already floats (or ints, whose '
     'differences, squares and comparisons give the same numbers)'): (
        'nplk_lab.model.ablation.x__binary_off__mutmut_3',
        'nplk_lab.model.ablation.x__binary_off__mutmut_5',
        'nplk_lab.model.ablation.x__closeness__mutmut_3',
        'nplk_lab.model.ablation.x__closeness__mutmut_5',
        'nplk_lab.model.ablation.x__closeness__mutmut_25',
        'nplk_lab.model.ablation.x__closeness__mutmut_27',
        'nplk_lab.model.ablation.x__closeness__mutmut_29',
        'nplk_lab.model.ablation.x__closeness__mutmut_31',
        'nplk_lab.model.ablation.x__paired__mutmut_3',
        'nplk_lab.model.ablation.x__paired__mutmut_5',
        'nplk_lab.model.ablation.x__paired__mutmut_7',
        'nplk_lab.model.ablation.x__paired__mutmut_9',
        'nplk_lab.model.ablation.x_ablation__mutmut_5',
        'nplk_lab.model.ablation.x_ablation__mutmut_7',
        'nplk_lab.model.ablation.x_nearest_labels__mutmut_3',
        'nplk_lab.model.ablation.x_nearest_labels__mutmut_5',
        'nplk_lab.model.ablation.x_nearest_labels__mutmut_12',
        'nplk_lab.model.ablation.x_nearest_labels__mutmut_14',
        'nplk_lab.model.ablation.x_off_decision__mutmut_3',
        'nplk_lab.model.ablation.x_off_decision__mutmut_5',
        'nplk_lab.model.ablation.x_off_decision__mutmut_82',
        'nplk_lab.model.ablation.x_off_decision__mutmut_84',
        'nplk_lab.model.ablation.x_point_values__mutmut_2',
        'nplk_lab.model.ablation.x_point_values__mutmut_6',
        'nplk_lab.model.ablation.x_point_values__mutmut_12',
        'nplk_lab.model.ablation.x_point_values__mutmut_14',
        'nplk_lab.model.ablation.x_point_values__mutmut_17',
        'nplk_lab.model.ablation.x_point_values__mutmut_19',
        'nplk_lab.model.ablation.x_point_values__mutmut_48',
        'nplk_lab.model.ablation.x_point_values__mutmut_50',
        'nplk_lab.model.paired.x_paired__mutmut_10',
        'nplk_lab.model.paired.x_paired__mutmut_12',
        'nplk_lab.model.paired.x_paired__mutmut_14',
        'nplk_lab.model.paired.x_paired__mutmut_16',
        'nplk_lab.model.atlas.atlas.x__column__mutmut_23',
        'nplk_lab.model.atlas.atlas.x__column__mutmut_25',
        'nplk_lab.model.ablation.x_smooth_predict__mutmut_39',
        'nplk_lab.model.ablation.x_smooth_predict__mutmut_41',
    ),
    "float('NAN') / float('INF') parse as float('nan') / float('inf')": (
        'nplk_lab.model.ablation.x__closeness__mutmut_16',
        'nplk_lab.model.ablation.x__score_of__mutmut_10',
        'nplk_lab.model.ablation.x_verdict__mutmut_39',
        'nplk_lab.model.ablation.xǁAblationǁscore__mutmut_7',
        'nplk_lab.model.verdicts.x__num__mutmut_4',
        'nplk_lab.model.verdicts.x__count__mutmut_12',
        'nplk_lab.model.paired.x_paired__mutmut_30',
        'nplk_lab.model.atlas.atlas_files.x_read_csv__mutmut_37',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_57',
        'nplk_lab.model.atlas.atlas.x_per_point_intervals__mutmut_4',
    ),
    ("_signed: the replacement only changes the text '±0.0' (or '±0.000'), which only a "
     'value below the threshold prints'): (
        'nplk_lab.model.ablation.x__signed__mutmut_22',
        'nplk_lab.model.ablation.x__signed__mutmut_25',
    ),
    ("the rule's first word: split(None) splits the same single-space text; "
     "method_rule(None, estimator) reads the estimator's own extension, and every non-DANK"
     " method's default is 'nearest' either way"): (
        'nplk_lab.model.ablation.x_ablation__mutmut_40',
        'nplk_lab.model.ablation.x_ablation__mutmut_41',
    ),
    "method_rule: any default other than 'reciprocal' reads 'nearest training point'": (
        'nplk_lab.model.ablation.x_method_rule__mutmut_12',
        'nplk_lab.model.ablation.x_method_rule__mutmut_13',
    ),
    'point_values: an empty test set never reaches it (ablation() returns None before)': (
        'nplk_lab.model.ablation.x_point_values__mutmut_22',
        'nplk_lab.model.ablation.x_point_values__mutmut_28',
    ),
    ('verdict: the regression branch without a plain row has one sentence, so the '
     'separator is never used'): (
        'nplk_lab.model.ablation.x_verdict__mutmut_125',
    ),
    "verdict: lstrip of 'X' characters from a signed number strips only its '+'": (
        'nplk_lab.model.ablation.x_verdict__mutmut_159',
    ),
    'verdict: an interval wholly above 0 has a mean above 0': (
        'nplk_lab.model.ablation.x_verdict__mutmut_204',
    ),
    ("verdict: an F-off interval wholly below 0 also makes its verdict 'does not hold', "
     'the other half of the or'): (
        'nplk_lab.model.ablation.x_verdict__mutmut_270',
        'nplk_lab.model.ablation.x_verdict__mutmut_271',
        'nplk_lab.model.ablation.x_verdict__mutmut_346',
        'nplk_lab.model.ablation.x_verdict__mutmut_347',
    ),
    ("a missing key's default: None or the solver names below cost the same as 'auto' / "
     "2000 (only the slow solvers' names and a truthy cap change the cost)"): (
        'nplk_lab.model.budget.x__dank_seconds__mutmut_3',
        'nplk_lab.model.budget.x__dank_seconds__mutmut_5',
        'nplk_lab.model.budget.x__dank_seconds__mutmut_8',
        'nplk_lab.model.budget.x__dank_seconds__mutmut_9',
        'nplk_lab.model.budget.x__dank_seconds__mutmut_21',
        'nplk_lab.model.budget.x__dank_seconds__mutmut_23',
        'nplk_lab.model.budget.x__iteration_factor__mutmut_10',
        'nplk_lab.model.budget.x__iteration_factor__mutmut_12',
        'nplk_lab.model.budget.x_study_verdict__mutmut_8',
        'nplk_lab.model.budget.x_study_verdict__mutmut_9',
    ),
    ('bisection with mid = (lo + hi + 2) // 2 still picks mid in (lo, hi] and finds the '
     'same largest n'): (
        'nplk_lab.model.budget.x__largest_n__mutmut_9',
        'nplk_lab.model.budget.x_study_verdict__mutmut_60',
    ),
    ('grid_resolution: a default of 101 is clipped to 100 at once; an integer product '
     'exceeds memory // 2 exactly when it exceeds memory / 2'): (
        'nplk_lab.model.budget.x_grid_resolution__mutmut_1',
        'nplk_lab.model.budget.x_grid_resolution__mutmut_33',
    ),
    "map and sweep never read the fit verdict's message, the only place its label goes": (
        'nplk_lab.model.budget.x_map_verdict__mutmut_28',
        'nplk_lab.model.budget.x_map_verdict__mutmut_34',
        'nplk_lab.model.budget.x_sweep_verdict__mutmut_11',
        'nplk_lab.model.budget.x_sweep_verdict__mutmut_17',
    ),
    'scalable_route reads only .scalable of the fallback model': (
        'nplk_lab.model.budget.x_scalable_route__mutmut_6',
        'nplk_lab.model.budget.x_scalable_route__mutmut_7',
        'nplk_lab.model.budget.x_scalable_route__mutmut_8',
        'nplk_lab.model.budget.x_scalable_route__mutmut_12',
        'nplk_lab.model.budget.x_scalable_route__mutmut_13',
        'nplk_lab.model.budget.x_scalable_route__mutmut_14',
    ),
    "_nesting_depth's tokens are single brackets or whole quoted strings, never an 'X'": (
        'nplk_lab.model.codec.x__nesting_depth__mutmut_9',
        'nplk_lab.model.codec.x__nesting_depth__mutmut_19',
    ),
    "a token's 'X' is already a letter": (
        'nplk_lab.model.codec.x_coerce__mutmut_150',
    ),
    "Python's codec names are case-insensitive": (
        'nplk_lab.model.codec.x_params_from_json__mutmut_28',
    ),
    'no error a 64 KB configuration can raise has a message over 80 characters': (
        'nplk_lab.model.codec.x_params_from_json__mutmut_53',
    ),
    'json.dumps writes tuples as lists already': (
        'nplk_lab.model.codec.x_params_to_json__mutmut_15',
        'nplk_lab.model.codec.x_params_to_json__mutmut_16',
        'nplk_lab.model.codec.x_params_to_json__mutmut_20',
        'nplk_lab.model.codec.x_params_to_json__mutmut_21',
    ),
    ("off_decision: a DANK fitted in k-means parts has no F_ and dual_u_, so the checks "
     "below return None for it without the n_clusters test"): (
        'nplk_lab.model.ablation.x_off_decision__mutmut_25',
        'nplk_lab.model.ablation.x_off_decision__mutmut_31',
        'nplk_lab.model.ablation.x_off_decision__mutmut_32',
        'nplk_lab.model.ablation.x_off_decision__mutmut_35',
    ),
    '_round: repr of inf and nan reads back as itself': (
        'nplk_lab.model.paired.x__round__mutmut_2',
    ),
    ('a single pair within the tie tolerance is a tie, and all ties clamp the interval to '
     '[0, 0] after this line'): (
        'nplk_lab.model.paired.x_paired__mutmut_80',
        'nplk_lab.model.paired.x_paired__mutmut_82',
        'nplk_lab.model.paired.x_paired__mutmut_83',
    ),
    'sign is ±1 (or ±2 here): only its sign is ever used, and 0 never occurs': (
        'nplk_lab.model.paired.xǁPairedǁas_dict__mutmut_22',
        'nplk_lab.model.verdicts.x__paired__mutmut_55',
        'nplk_lab.model.verdicts.x__paired__mutmut_68',
        'nplk_lab.model.verdicts.x_is_loss__mutmut_15',
        'nplk_lab.model.verdicts.x_is_loss__mutmut_28',
    ),
    ("a missing key's default None: the following `or 0.0` / `or []` / `> 0` / bool() / "
     'membership test gives the same'): (
        'nplk_lab.model.verdicts.x__paired__mutmut_72',
        'nplk_lab.model.verdicts.x__paired__mutmut_74',
        'nplk_lab.model.verdicts.x__paired__mutmut_81',
        'nplk_lab.model.verdicts.x__paired__mutmut_83',
        'nplk_lab.model.verdicts.x_is_loss__mutmut_3',
        'nplk_lab.model.verdicts.x_is_loss__mutmut_5',
        'nplk_lab.model.verdicts.x_table__mutmut_4',
        'nplk_lab.model.verdicts.x_table__mutmut_6',
        'nplk_lab.model.verdicts.x_by_preset__mutmut_5',
        'nplk_lab.model.verdicts.x_by_preset__mutmut_7',
        'nplk_lab.model.verdicts.x_counts__mutmut_9',
        'nplk_lab.model.verdicts.x_counts__mutmut_11',
        'nplk_lab.model.verdicts.x_counts__mutmut_25',
        'nplk_lab.model.verdicts.x_counts__mutmut_27',
    ),
    ("by_preset's zip: table() keeps exactly the dict rows it zips with, so the lengths "
     'always match'): (
        'nplk_lab.model.verdicts.x_by_preset__mutmut_13',
        'nplk_lab.model.verdicts.x_by_preset__mutmut_16',
        'nplk_lab.model.verdicts.x_by_preset__mutmut_18',
    ),
    ('plain_number: rstrip("XX0XX") / rstrip("XX.XX") strip the same characters from a '
     'number, which has no X'): (
        'nplk_lab.model.claims_tables.x_plain_number__mutmut_5',
        'nplk_lab.model.claims_tables.x_plain_number__mutmut_6',
    ),
    'somewhere: a list of 2s for 1s; only whether it is empty is read': (
        'nplk_lab.model.claims_tables.x_somewhere__mutmut_13',
        'nplk_lab.model.claims_tables.x_somewhere__mutmut_29',
    ),
    'smooth_check: need(None, ...) for need(False, ...); need only tests truth': (
        'nplk_lab.model.claims_tables.x_smooth_check__mutmut_31',
    ),
    ("_share: the share it is given lies strictly between 0 and 1 (the off model's gain "
     "is above 0 and below the method's on the same points), so 100 % and 0 % never occur "
     "and a percentage in [1, 2) or at 99 never rounds to '0' or '100'"): (
        'nplk_lab.model.ablation.x__share__mutmut_4',
        'nplk_lab.model.ablation.x__share__mutmut_6',
        'nplk_lab.model.ablation.x__share__mutmut_7',
        'nplk_lab.model.ablation.x__share__mutmut_8',
        'nplk_lab.model.ablation.x__share__mutmut_13',
        'nplk_lab.model.ablation.x__share__mutmut_15',
        'nplk_lab.model.ablation.x__share__mutmut_16',
        'nplk_lab.model.ablation.x__share__mutmut_17',
    ),
    ("rule_key: a changed default for a method other than DANK is not 'reciprocal', so "
     "the last line returns 'nearest' for it all the same; rule_name is only given keys "
     "of RULE_NAMES"): (
        'nplk_lab.model.ablation.x_rule_key__mutmut_13',
        'nplk_lab.model.ablation.x_rule_key__mutmut_14',
        'nplk_lab.model.ablation.x_rule_name__mutmut_2',
        'nplk_lab.model.ablation.x_rule_name__mutmut_4',
    ),
    ("a gzip file written over a file opened 'wb' takes its mode from that file"): (
        'nplk_lab.model.atlas.atlas_files.x_write_csv__mutmut_33',
        'nplk_lab.model.atlas.atlas_files.x_write_csv__mutmut_36',
    ),
    ("an interval's label, unit and count (and a score row's label) are read only by "
     "text(), as_dict() and the page's table; the atlas's summary, its per-seed intervals "
     "and the paragraph written from a per-seed row read means, bounds and verdicts"): (
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_95',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_96',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_101',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_113',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_114',
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_45',
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_46',
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_51',
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_63',
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_64',
        'nplk_lab.model.atlas.atlas_words.x__pt__mutmut_19',
        'nplk_lab.model.atlas.atlas_words.x__pt__mutmut_20',
        'nplk_lab.model.atlas.atlas_words.x__pt__mutmut_21',
        'nplk_lab.model.atlas.atlas.x_per_point_intervals__mutmut_24',
        'nplk_lab.model.ablation.x_from_predictions__mutmut_113',
        'nplk_lab.model.ablation.x_from_predictions__mutmut_114',
        'nplk_lab.model.ablation.x_from_predictions__mutmut_119',
    ),
    ("table_of: its only caller is paragraph(), and the paragraph (ablation.verdict) "
     "reads the rows' scores, the plain row's agreement with 1-NN, the intervals' "
     "means and bounds and the task it is given; never a row's label, relative error "
     "or the method, off and 1-NN rows' agreement (columns of the page's table), nor "
     "an interval's label, unit or count"): (
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_1',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_4',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_5',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_6',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_7',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_8',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_9',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_10',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_11',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_19',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_21',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_27',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_30',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_31',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_34',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_35',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_36',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_39',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_51',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_52',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_53',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_61',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_62',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_64',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_76',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_77',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_78',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_86',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_87',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_89',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_95',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_111',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_112',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_113',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_121',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_122',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_125',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_126',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_127',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_135',
        'nplk_lab.model.atlas.atlas_words.x_table_of__mutmut_136',
    ),
    ("summarize: the mean over no seeds is NaN either way (numpy warns of the empty "
     "slice)"): (
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_46',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_63',
        'nplk_lab.model.atlas.atlas.x_summarize__mutmut_78',
    ),
    ("summarize_smooth: a method without the smooth rule has a NaN smooth score at every "
     "seed (measure_set writes NaN), so the finiteness test returns for it as well"): (
        'nplk_lab.model.atlas.atlas.x_summarize_smooth__mutmut_2',
    ),
    ("_row_key: a summary row has no seed; any one default sorts every summary row the "
     "same"): (
        'nplk_lab.model.atlas.atlas.x__row_key__mutmut_24',
        'nplk_lab.model.atlas.atlas.x__row_key__mutmut_25',
    ),
    ("run: os.cpu_count() is a number wherever it can be told; the 'or 1' is for a "
     "system that cannot tell"): (
        'nplk_lab.model.atlas.atlas.x_run__mutmut_39',
    ),
    ("_print_claims: the SimpleNPKL sentences read their own table only (the second "
     "table is unused)"): (
        'nplk_lab.model.atlas.atlas.x__print_claims__mutmut_38',
    ),
    ("measure_set: the plain SVM's seed: scikit-learn's SVC without probability "
     "estimates uses no randomness"): (
        'nplk_lab.model.atlas.atlas.x_measure_set__mutmut_56',
        'nplk_lab.model.atlas.atlas.x_measure_set__mutmut_57',
    ),
    ("measure_set: the smooth rule asked of every method: smooth_predict returns None for "
     "a model without a smooth-rule width, which ONK and LAB RBF (the atlas's other "
     "methods) are"): (
        'nplk_lab.model.atlas.atlas.x_measure_set__mutmut_137',
    ),
    "main: argparse's default is None already": (
        'nplk_lab.model.atlas.atlas.x_main__mutmut_36',
        'nplk_lab.model.atlas.atlas.x_main__mutmut_45',
        'nplk_lab.model.atlas.atlas.x_main__mutmut_70',
        'nplk_lab.model.atlas.atlas.x_main__mutmut_106',
    ),
    "main: --cache as text names the same folder: the cache's functions take Path(cache)": (
        'nplk_lab.model.atlas.atlas.x_main__mutmut_102',
        'nplk_lab.model.atlas.atlas.x_main__mutmut_105',
    ),
    "_report_only: a run.json without a note: None and '' both add no sentence": (
        'nplk_lab.model.atlas.atlas.x__report_only__mutmut_45',
        'nplk_lab.model.atlas.atlas.x__report_only__mutmut_47',
    ),
}
EQUIVALENT: dict[str, str] = {name: reason for reason, names in _EQUIVALENT_GROUPS.items()
                               for name in names}

KILLED = ("killed", "timeout")


def results() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"],
                         capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        if ": " in line.strip():
            name, status = line.strip().rsplit(": ", 1)
            rows[name] = status
    return rows


def summary(rows: dict[str, str]) -> list[dict[str, object]]:
    by_module: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for name, status in rows.items():
        module = name.rsplit(".", 1)[0].split(".", 2)[2]   # atlas.atlas_words, paired
        # an equivalent mutant that timed out did so because the machine was loaded
        eq = status in ("survived", "timeout") and (
            name in EQUIVALENT or class_store_equivalents.reason(name) is not None)
        by_module[module]["equivalent" if eq else status] += 1
    table = []
    for module, c in sorted(by_module.items()):
        killed = sum(c[k] for k in KILLED)
        judged = killed + c["survived"] + c["no tests"]
        table.append({"module": module, "mutants": sum(c.values()), "killed": killed,
                      "of which timed out": c["timeout"],
                      "survived": c["survived"], "no test reaches it": c["no tests"],
                      "equivalent": c["equivalent"], "not run": c["not checked"],
                      "kill rate": killed / judged if judged else float("nan")})
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--survivors", action="store_true",
                    help="also list the surviving mutants not judged equivalent")
    args = ap.parse_args()
    rows = results()
    cols = ["module", "mutants", "killed", "of which timed out", "survived",
            "no test reaches it", "equivalent", "not run", "kill rate"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in summary(rows):
        r["kill rate"] = f"{100 * r['kill rate']:.1f} %"
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    if args.survivors:
        for name, status in sorted(rows.items()):
            if status in ("survived", "no tests") and name not in EQUIVALENT and \
                    class_store_equivalents.reason(name) is None:
                print(f"{status}: {name}")


if __name__ == "__main__":
    main()
