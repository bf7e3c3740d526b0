"""Tool-call evaluations: does a model pick the right tool with the right arguments?

Cases (:class:`EvalCase`) and suites (:class:`EvalSuite`, ``*.evals.json`` files), scored by
BFCL's rules (:func:`score_calls`) or other scorers (:class:`Scorer`: ``text_contains``,
``text_matches``, ``judge``, BFCL multi-turn's ``final_state``), run over models and tool variants
(:func:`run_evals`) into an :class:`EvalReport` (saved and loaded as one file; :func:`compare_reports`
says what changed between two); :func:`load_bfcl` imports the Berkeley Function Calling Leaderboard's
data, multi-turn categories included (:class:`BFCLMultiTurnCase`).
"""

from __future__ import annotations

from workbench.evals._bfcl import BFCL_CATEGORIES, load_bfcl
from workbench.evals._bfcl_multi_turn import BFCLMultiTurnCase
from workbench.evals._bfcl_playback import BFCLPlayback
from workbench.evals._cache import CachedModel, RequestCache
from workbench.evals._case import EvalCase, EvalSuite
from workbench.evals._compare import Comparison, ReportComparison, compare_reports
from workbench.evals._files import EvalFileError, add_eval_case, find_eval_files, load_evals, save_evals, suite_registry
from workbench.evals._report import EvalReport
from workbench.evals._report_file import EvalReportFileError
from workbench.evals._run import run_evals
from workbench.evals._scorers import Score, Scorer, judge, text_contains, text_matches
from workbench.evals._scoring import ExpectedCall, Verdict, normalise_string, score_calls
from workbench.evals._stats import mcnemar_exact, pass_at_k, pass_hat_k, sign_flip_test
from workbench.formats._bfcl_schema import bfcl_function_spec, bfcl_schema

__all__ = [
    "BFCLMultiTurnCase",
    "BFCLPlayback",
    "BFCL_CATEGORIES",
    "add_eval_case",
    "CachedModel",
    "Comparison",
    "EvalCase",
    "EvalFileError",
    "EvalReport",
    "EvalReportFileError",
    "EvalSuite",
    "ExpectedCall",
    "ReportComparison",
    "RequestCache",
    "Score",
    "Scorer",
    "Verdict",
    "bfcl_function_spec",
    "bfcl_schema",
    "compare_reports",
    "find_eval_files",
    "judge",
    "load_bfcl",
    "load_evals",
    "mcnemar_exact",
    "normalise_string",
    "pass_at_k",
    "pass_hat_k",
    "run_evals",
    "save_evals",
    "score_calls",
    "sign_flip_test",
    "suite_registry",
    "text_contains",
    "text_matches",
]
