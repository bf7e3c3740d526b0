"""Tool-call evaluations: does a model pick the right tool with the right arguments?

Cases (:class:`EvalCase`) and suites (:class:`EvalSuite`, ``*.evals.json`` files), scored by
BFCL's rules (:func:`score_calls`), run over models and tool variants (:func:`run_evals`) into an
:class:`EvalReport`; :func:`load_bfcl` imports the Berkeley Function Calling Leaderboard's data.
"""

from __future__ import annotations

from workbench.evals._bfcl import BFCL_CATEGORIES, load_bfcl
from workbench.evals._bfcl_schema import bfcl_function_spec, bfcl_schema
from workbench.evals._case import EvalCase, EvalSuite
from workbench.evals._scoring import ExpectedCall, Verdict, normalise_string, score_calls

__all__ = ["BFCL_CATEGORIES", "EvalCase", "EvalSuite", "ExpectedCall", "Verdict", "bfcl_function_spec",
           "bfcl_schema", "load_bfcl", "normalise_string", "score_calls"]
