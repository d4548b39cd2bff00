"""Fix suggestions: rewrites of TTNN IR that remove a finding, each evaluated by re-analyzing the result."""
