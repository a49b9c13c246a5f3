# Replace a deprecated call in every Python file that uses it.
from hermes_tools import search_files, patch

matches = search_files("old_api_call\\(", path="src/", file_glob="*.py")
files = sorted({m["path"] for m in matches.get("matches", []) if not m["path"].endswith("api.py")})
fixed = 0
for path in files:
    result = patch(path=path, old_string="old_api_call(", new_string="new_api_call(", replace_all=True)
    if "error" not in result:
        fixed += 1

print(f"Fixed {fixed} files out of {len(files)} with matches")
