# Run the test suite through the terminal, parse the result, and report only a summary.
import json
from hermes_tools import terminal

result = terminal("python3 -m unittest discover -s tests -v 2>&1", timeout=120)
output = result.get("output", "")
report = {
    "ran": sum(1 for line in output.splitlines() if line.endswith(" ... ok") or " ... FAIL" in line or " ... ERROR" in line),
    "passed": sum(1 for line in output.splitlines() if line.endswith(" ... ok")),
    "failed": sum(1 for line in output.splitlines() if " ... FAIL" in line or " ... ERROR" in line),
    "exit_code": result.get("exit_code", -1),
}
print(json.dumps(report, sort_keys=True))
