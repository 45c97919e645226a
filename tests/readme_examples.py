"""readme_examples.py [-C DIR] [FILE] - run the shell examples of a README
(README.md by default) top to bottom and compare their output with what
the README shows.  Exit status 0 when every example runs and prints what
the README shows, 1 otherwise (each difference is printed), 2 on usage.

The convention, which README.md states for its readers near the top:

- An example is an indented code block (four spaces) with lines that start
  with "$ ": each such line is a command; lines that follow it starting
  with "> " (the shell's second prompt) continue it, as does a line ending
  in a backslash.  Every other line up to the next command is what the
  command prints, standard output and standard error together, as a
  terminal shows them.  A command with nothing under it prints nothing.
- The commands run in one bash, in the order of the README, from DIR (the
  README's folder by default), each with standard input from /dev/null;
  every command must exit 0.  "$T" in the shown output stands for the
  value of the shell variable T (the README's temporary folder).
- Output is compared word by word, so runs of blanks (column alignment)
  do not matter.  A line "..." stands for any number of lines; a word
  "..." for any number of words in its line.
- An HTML comment on the line before the block changes that:
    <!-- example: not run -->           shown to the reader, never run
    <!-- example: output varies -->     the first line of each output
                                        (its header) is compared, no more
    <!-- example: columns vary: A B --> the words under the header words A
                                        and B are not compared
  A table's header is the first line of an output, and the first line
  after a blank line, that does not start with "#".
- An indented block that starts with a shell command (gtool, make, ...)
  but has no "$ " prompt is an error: it would never be checked.

The commands' files must go under $T: a file that appears in the source
tree, build/ aside, or disappears from it, is an error too."""
import difflib
import os
import re
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->\s*$")
COMMAND_WORDS = ("gtool", "make", "mpirun", "cc", "h5repack", "h5dump",
                 "export", "python3", "/usr/bin/python3", "cat", "sh",
                 "bash", "cd", "ls", "for")
MAX_SECONDS = 600


def parse_marker(text, lineno, errors):
    """A marker's text as (kind, columns)."""
    if text in ("not run", "output varies"):
        return text, []
    m = re.match(r"^columns vary:\s*(.+)$", text)
    if m:
        return "columns vary", m.group(1).split()
    errors.append("%d: unknown example marker '%s'" % (lineno, text))
    return None, []


def blocks(lines, errors):
    """Each indented code block as (first line number, its lines without
    the indent, (kind, columns) of the marker before it)."""
    out, fenced, marker, i = [], False, (None, []), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        m = MARKER.match(line)
        if not fenced and m:
            marker = parse_marker(m.group(1), i + 1, errors)
        elif (not fenced and line.startswith("    ")
              and (i == 0 or not lines[i - 1].strip()
                   or MARKER.match(lines[i - 1]))):
            start, body = i, []
            while i < len(lines) and (lines[i].startswith("    ")
                                      or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            out.append((start + 1, body, marker))
            marker = (None, [])
            continue
        elif line.strip():
            marker = (None, [])
        i += 1
    return out


def examples(path, errors):
    """The commands of a README, each a dict: line, command, expected
    lines, marker kind and varying columns."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    cmds = []
    for start, body, (kind, cols) in blocks(lines, errors):
        if not any(b.startswith("$ ") for b in body):
            words = body[0].split()
            if words and (words[0] in COMMAND_WORDS
                          or words[0].startswith(("PATH=", "T="))):
                errors.append("%d: a command without a \"$ \" prompt: %s"
                              % (start, body[0]))
            continue
        j = 0
        while j < len(body):
            if not body[j].startswith("$ "):
                errors.append("%d: output before the first command: %s"
                              % (start + j, body[j]))
                j += 1
                continue
            cmd, line = [body[j][2:]], start + j
            j += 1
            while j < len(body) and (body[j].startswith("> ")
                                     or cmd[-1].endswith("\\")):
                cmd.append(body[j][2:] if body[j].startswith("> ")
                           else body[j])
                j += 1
            exp = []
            while j < len(body) and not body[j].startswith("$ "):
                exp.append(body[j])
                j += 1
            while exp and not exp[-1].strip():
                exp.pop()
            cmds.append({"line": line, "command": "\n".join(cmd),
                         "expected": exp, "kind": kind, "columns": cols})
    return cmds


def script(cmds, outdir):
    """One bash script that runs every command and keeps its output, exit
    status and the value of T after it."""
    parts = []
    for n, c in enumerate(cmds):
        if c["kind"] == "not run":
            continue
        base = os.path.join(outdir, str(n))
        parts.append("__t=$EPOCHREALTIME\n{\n%s\n} < /dev/null > '%s.out' 2>&1\n"
                     "echo $? > '%s.rc'\nprintf %%s \"${T-}\" > '%s.T'\n"
                     "echo \"$__t $EPOCHREALTIME\" > '%s.s'\n"
                     % (c["command"], base, base, base, base))
    return "".join(parts)


def tree(root):
    """The files of the source tree, .git and build/ aside."""
    found = set()
    for d, subdirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel == ".":
            subdirs[:] = [s for s in subdirs if s not in (".git", "build")]
        found.update(os.path.normpath(os.path.join(rel, f)) for f in files)
    return found


def glob_match(pat, items, same):
    """Whether items match pat, where an element "..." of pat stands for
    any number of items and others must be same()."""
    ok = [[False] * (len(items) + 1) for _ in range(len(pat) + 1)]
    ok[len(pat)][len(items)] = True
    for i in range(len(pat) - 1, -1, -1):
        for j in range(len(items), -1, -1):
            if pat[i] == "...":
                ok[i][j] = ok[i + 1][j] or (j < len(items) and ok[i][j + 1])
            else:
                ok[i][j] = (j < len(items) and same(pat[i], items[j])
                            and ok[i + 1][j + 1])
    return ok[0][0]


def annotate(expected, columns, errors, where):
    """Each shown line as (words, indexes of the words not compared)."""
    out, header, seen = [], None, set()
    for line in expected:
        words = line.split()
        if not words:
            header = None
            out.append(("", ()))
            continue
        if line.strip() == "...":
            out.append("...")
            continue
        if header is None and not words[0].startswith("#"):
            header = words
            seen.update(c for c in columns if c in words)
            out.append((tuple(words), ()))
            continue
        skip = ()
        if header is not None and len(words) <= len(header):
            skip = tuple(k - len(header) for k, w in enumerate(header)
                         if w in columns)
        out.append((tuple(words), skip))
    for c in columns if expected else ():
        if c not in seen:
            errors.append("%s: no column '%s' in the shown output"
                          % (where, c))
    return out


def same_line(shown, words):
    """Whether a printed line's words match one annotated shown line."""
    pat, skip = shown
    if pat == "":
        return not words
    if skip and len(words) == len(pat):
        return all(k - len(pat) in skip or p == w
                   for k, (p, w) in enumerate(zip(pat, words)))
    return glob_match(list(pat), words, lambda p, w: p == w)


def first_bad(shown, words):
    """The index of the first shown line that no printed line can match
    (len(shown) when every line matches but printed lines are left)."""
    for i in range(len(shown)):
        if not glob_match(shown[:i + 1] + ["..."], words, same_line):
            return i
    return len(shown)


def printed(base):
    """A command's output lines, with the value of T written as $T."""
    with open(base + ".out", encoding="utf-8", errors="replace") as f:
        text = f.read()
    with open(base + ".T", encoding="utf-8") as f:
        tval = f.read()
    if tval:
        text = text.replace(tval, "$T")
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def check(c, base, name, errors):
    """Compare one command's exit status and output with the README."""
    where = "%s:%d" % (name, c["line"])
    exp = c["expected"]
    if c["kind"] == "output varies":
        exp = exp[:1] + ["..."] if exp else []
    shown = annotate(exp, c["columns"], errors, where)
    if not os.path.exists(base + ".rc"):
        errors.append("%s: $ %s: did not run" % (where, c["command"]))
        return
    with open(base + ".rc", encoding="utf-8") as f:
        rc = f.read().strip()
    got = printed(base)
    words = [ln.split() for ln in got]
    if rc != "0":
        errors.append("%s: $ %s: exit status %s\n%s"
                      % (where, c["command"], rc, "\n".join(got[-20:])))
    elif not glob_match(shown, words, same_line):
        bad = first_bad(shown, words)
        diff = difflib.unified_diff(exp, got, "shown in " + name,
                                    "printed", lineterm="", n=1)
        errors.append("%s: $ %s: prints other than shown\n"
                      "%s:%d: the first shown line that does not match\n%s"
                      % (where, c["command"], name,
                         c["line"] + c["command"].count("\n") + 1 + bad,
                         "\n".join(list(diff)[:60])))


def main(argv):
    """Parse the arguments, run the examples, report."""
    args, root = list(argv[1:]), None
    if len(args) >= 2 and args[0] == "-C":
        root = args[1]
        del args[:2]
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.stderr.write("usage: readme_examples.py [-C DIR] [FILE]\n")
        return 2
    path = args[0] if args else "README.md"
    name = os.path.basename(path)
    root = root or os.path.dirname(os.path.abspath(path))
    errors = []
    cmds = examples(path, errors)
    before = tree(root)
    with tempfile.TemporaryDirectory() as tmp:
        outdir = os.path.join(tmp, "out")
        os.mkdir(outdir)
        env = dict(os.environ, TMPDIR=tmp)
        try:
            subprocess.run(["bash", "-c", script(cmds, outdir)], cwd=root,
                           env=env, stdin=subprocess.DEVNULL,
                           timeout=MAX_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            errors.append("%s: the examples ran over %d s"
                          % (name, MAX_SECONDS))
        times = []
        for n, c in enumerate(cmds):
            if c["kind"] == "not run":
                continue
            base = os.path.join(outdir, str(n))
            check(c, base, name, errors)
            if os.path.exists(base + ".s"):
                with open(base + ".s", encoding="utf-8") as f:
                    t0, t1 = f.read().split()
                times.append((c["line"], float(t1) - float(t0)))
    after = tree(root)
    for f in sorted(after - before):
        errors.append("%s: the examples wrote %s into %s" % (name, f, root))
    for f in sorted(before - after):
        errors.append("%s: the examples removed %s from %s" % (name, f, root))
    for e in errors:
        print(e if e.startswith(name) else "%s:%s" % (name, e))
    run = sum(c["kind"] != "not run" for c in cmds)
    if times:
        line, sec = max(times, key=lambda t: t[1])
        print("%s: %.1f s in all, the longest %s:%d, %.1f s"
              % (name, sum(t for _, t in times), name, line, sec))
    print("%s: %d commands, %d run, %d not run, %d problems"
          % (name, len(cmds), run, len(cmds) - run, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
