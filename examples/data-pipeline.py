# Find every YAML config that mentions a database and show a preview of each:
# one model turn instead of a search plus one read_file per match.
import json
from hermes_tools import search_files, read_file

matches = search_files("database", path=".", file_glob="*.yaml", limit=20)
configs = []
for path in sorted({m["path"] for m in matches.get("matches", [])}):
    content = read_file(path)
    configs.append({"file": path, "preview": content["content"][:200]})

print(json.dumps(configs, indent=2))
