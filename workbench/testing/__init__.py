"""Turn what was tried on a tool into lasting tests: saved cases, property tests, spec-change checks."""
