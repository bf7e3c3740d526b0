"""The core stays light: `import workbench` must not import ipywidgets, IPython, pandas, hypothesis or jsonschema."""

import json
import subprocess
import sys


def test_import_workbench_does_not_import_notebook_stack():
    code = (
        "import sys, json, workbench\n"
        "from workbench import tool, ToolRegistry, SequentialExecutor\n"
        "@tool\ndef add(a: int, b: int) -> int:\n    'Add.'\n    return a + b\n"
        "SequentialExecutor().call(ToolRegistry([add]), 'add', {'a': 1, 'b': 2})\n"
        "print(json.dumps([m for m in ('ipywidgets', 'IPython', 'pandas', 'hypothesis', 'jsonschema', 'dask', 'distributed', 'tqdm', 'matplotlib') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_lazy_names_resolve():
    import workbench

    assert workbench.ExecutionLog.__name__ == "ExecutionLog"
    assert callable(workbench.to_provider_format)
