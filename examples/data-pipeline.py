# Find every YAML config that mentions a database and show a preview of each:
# one model turn instead of a search plus one read_file per match.
import json
from hermes_tools import search_files, read_file

matches = search_files("database", path=".", file_glob="*.yaml", limit=20)
configs = []
for match in matches.get("matches", []):
    content = read_file(match["path"])
    configs.append({"file": match["path"], "preview": content["content"][:200]})

configs.sort(key=lambda c: c["file"])
print(json.dumps(configs, indent=2))
