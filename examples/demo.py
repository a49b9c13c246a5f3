# A short tour of execute_code: tools called from a script over RPC.
from hermes_tools import write_file, read_file, search_files, terminal

write_file("hello/greeting.txt", "hello from a script\nsecond line\n")
print("read back:", read_file("hello/greeting.txt")["content"].splitlines()[0])
print("found:", [m["path"] for m in search_files("second", path="hello")["matches"]])
print("python:", terminal("python3 --version")["output"].strip())
