/*
 * execute_code scripts (Python) with the verdict assessScript must give before they run:
 * issue 22's script paths, written fresh, and ordinary scripts that must not be asked about.
 * Every script here is only ever assessed, never run (floor-end-to-end.test.ts runs its own).
 */
import type { Verdict } from './types.js';

/** A script, its verdict, and for a refusal the line the reason must name. */
export type ScriptCase = readonly [script: string, verdict: Verdict, line?: number];

const lines = (...text: string[]) => text.join('\n');

export const SCRIPT_CASES: readonly ScriptCase[] = [
  // Issue 22: os.system("rm -rf ~/*") in a script.
  [lines('import os', 'print("cleaning up")', 'os.system("rm -rf ~/*")'), 'blocked', 3],
  // shutil.rmtree(os.environ["HOME"]), directly and by a name built at run time.
  [lines('import os, shutil', 'shutil.rmtree(os.environ["HOME"])'), 'blocked', 2],
  [lines('import os', 'fn = getattr(__import__("shutil"), "rm" + "tree")', 'getattr(__import__("shutil"), "rm" + "tree")(os.environ["HOME"])'), 'blocked', 3],
  // chr() arithmetic that spells `rm -rf ~`.
  [lines('import os', 'os.system(chr(114) + chr(109) + " -rf ~")'), 'blocked', 2],
  // subprocess with an argv list aimed at the home folder (the path joined at run time).
  [lines('import os, subprocess', 'home = os.path.expanduser("~")', 'subprocess.run(["rm", "-r", "-f", home])'), 'blocked', 3],
  // The core-pattern escape through Python's open, and through sysctl from subprocess.
  [lines('with open("/proc/sys/kernel/core_pattern", "w") as f:', '    f.write("|/tmp/evil %p")'), 'blocked', 1],
  [lines('import subprocess', 'subprocess.run("sysctl -w kernel.core_pattern=/tmp/x", shell=True)'), 'blocked', 2],
  // kill -9 1, as os.kill.
  [lines('import os, signal', 'os.kill(1, signal.SIGKILL)'), 'blocked', 2],
  // A shell here-document fed to python from os.system.
  [lines('import os', 'os.system("""python3 - <<EOF', 'import shutil, os', 'shutil.rmtree(os.environ["HOME"])', 'EOF""")'), 'blocked', 2],
  // exec of literal code is read as code.
  [lines('exec("import os\\nos.system(\'rm -rf ~\')")'), 'blocked', 1],
  // Other spellings of the same: aliases, a function bound to a name, adjacent literals, formats, sys.modules, keywords.
  [lines('from os import system as run_it', 'run_it("rm -rf ~")'), 'blocked', 2],
  [lines('import os, shutil', 'wipe = shutil.rmtree', 'wipe(os.environ["HOME"])'), 'blocked', 3],
  [lines('import os', 'f = getattr(os, "sys" + "tem")', 'f("rm -rf ~")'), 'blocked', 3],
  [lines('import os', 'os.system("r" "m -rf ~")'), 'blocked', 2],
  [lines('import os', 'os.system("rm -rf %s" % "~")'), 'blocked', 2],
  [lines('import os', 'os.system("rm -rf {}".format("~"))'), 'blocked', 2],
  [lines('import sys, os', 'sys.modules["os"].system("rm -rf ~")'), 'blocked', 2],
  [lines('import os, shutil', 'shutil.rmtree(path=os.environ["HOME"])'), 'blocked', 2],
  [lines('__builtins__.__dict__["exec"]("import os; os.system(\'rm -rf ~\')")'), 'blocked', 1],
  [lines('import os', 'os.execvp("rm", ["rm", "-rf", os.path.expanduser("~")])'), 'blocked', 2],
  // A floor command handed to hermes_tools.terminal refuses the script before its first line runs.
  [lines('from hermes_tools import terminal', 'print(terminal("ls")["output"])', 'terminal("rm -rf ~")'), 'blocked', 3],
  // Unpacking into the home folder from Python.
  [lines('import os, tarfile', 'tarfile.open("/tmp/payload.tar").extractall(os.path.expanduser("~"))'), 'risky', 2],
  // Risky: tar -C ~ -xf, os.rename of ~/.ssh, systemctl --user enable --now, iptables -F.
  [lines('import subprocess', 'subprocess.run(["tar", "-C", "/home/ada", "-xf", "/tmp/payload.tar"])'), 'risky', 2],
  [lines('import os', 'os.rename(os.path.expanduser("~/.ssh"), "/tmp/keys")'), 'risky', 2],
  [lines('import subprocess', 'subprocess.run(["systemctl", "--user", "enable", "--now", "backdoor.service"])'), 'risky', 2],
  [lines('import os', 'os.system("iptables -F")'), 'risky', 2],
  // Risky: what the reading cannot resolve, of a destructive kind.
  [lines('import shutil, sys', 'shutil.rmtree(sys.argv[1])'), 'risky', 2],
  [lines('import os', 'cmd = input()', 'os.system(cmd)'), 'risky', 3],
  [lines('import shutil, sys', 'getattr(shutil, sys.argv[1])("build")'), 'risky', 2],
  [lines('import os', 'exec(input())'), 'risky', 2],
  [lines('from pathlib import Path', '(Path.home() / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA x")'), 'risky', 2],
  // Ordinary scripts: nothing to ask.
  [lines('from hermes_tools import read_file', 'print(read_file("notes.md")["content"][:200])'), 'safe'],
  [lines('import subprocess', 'print(subprocess.run(["ls"], capture_output=True, text=True).stdout)'), 'safe'],
  [lines('with open("out.txt", "w") as f:', '    f.write("hello")', 'print(open("out.txt").read())'), 'safe'],
  [lines('import subprocess, os, signal', 'p = subprocess.Popen(["sleep", "30"])', 'os.kill(p.pid, signal.SIGTERM)', 'p.wait()'), 'safe'],
  [lines('import os, signal', 'os.kill(os.getpid(), 0)'), 'safe'],
  [lines('import shutil, tempfile', 'd = tempfile.mkdtemp()', 'open(d + "/x", "w").write("1")', 'shutil.rmtree(d)'), 'safe'],
  [lines('import os', 'for name in os.listdir("."):', '    if name.endswith(".tmp"):', '        os.remove(name)'), 'safe'],
  [lines('import os, json', 'tmp = "state.json.tmp"', 'json.dump({"a": 1}, open(tmp, "w"))', 'os.replace(tmp, "state.json")'), 'safe'],
  [lines('import shutil', 'shutil.rmtree("build", ignore_errors=True)', 'shutil.copy("a.txt", "b.txt")'), 'safe'],
  [lines('import re', 'text = "a-b-c"', 'print(re.sub("-", " ", text).replace("a", "b"))', 'print(",".join(["x", "y"]))'), 'safe'],
  [lines('import json, urllib.request', 'data = json.loads(\'{"k": [1, 2]}\')', 'print(sum(data["k"]))'), 'safe'],
  [lines('from hermes_tools import terminal', 'r = terminal("git status")', 'print(r["output"])'), 'safe'],
  // A risky terminal() command is asked when the call is made (with its real text), not twice.
  [lines('from hermes_tools import terminal', 'terminal("git reset --hard")'), 'safe'],
  [lines('import tarfile', 'tarfile.open("release.tar").extractall("build")'), 'safe'],
  [lines('import os', 'print(os.environ["HOME"])', 'print(os.path.expanduser("~/notes"))'), 'safe'],
];
