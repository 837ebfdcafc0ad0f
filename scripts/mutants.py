#!/usr/bin/env python3
"""Generated mutants of the C++ sources: which small bugs does the suite miss?

Where scripts/mutation-check.sh applies the hand-written list tests/mutations.txt, this script
writes the mutants itself, by operator, over the files a change touched (or the files given),
samples N of them with a seed, applies each to a copy of the sources (never the checkout),
rebuilds incrementally, runs the tests labelled with the mutated file's directory and, only when
they pass, the whole suite, and prints the score and every surviving mutant as a diff.

usage: scripts/mutants.py [FILE...] [--changed [--base REF]] [--sample N] [--seed S] [--list]

A mutant that does not compile is counted apart (the compiler caught it, not the suite). Whether
a mutant is equivalent (no input tells it apart) cannot be decided here: a person marks those in
tests/equivalent-mutants.txt, and they are counted apart too.

The copy and its build are build-mutation/ (shared with scripts/mutation-check.sh: unity batches
at -O0, so a mutant recompiles its batch and relinks); a lock keeps two runs apart.
Only Python's standard library is used.
"""

import argparse
import difflib
import fcntl
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

# ---------------------------------------------------------------------------------------------
# Lexing: which characters are code. Comments, string and character literals and preprocessor
# lines are masked, so the operators below match code only; literals are kept apart for the one
# operator that mutates them.

COMMENT_MASK = " "
LITERAL_MASK = "\x00"


def mask_source(text):
    """Returns (masked, literals): masked has text's length, with comments and preprocessor lines
    blanked and literal characters replaced by LITERAL_MASK; literals lists (start, end, kind) of
    each string ('s') or character ('c') literal, quotes included."""
    out = list(text)
    literals = []
    i, n = 0, len(text)
    line_start = True  # only whitespace since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = COMMENT_MASK
            i = j
            continue
        if c in " \t":
            i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = COMMENT_MASK
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = COMMENT_MASK
            i = j
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            j = text.find(close, i + raw.end())
            j = n if j < 0 else j + len(close)
            _mask_literal(out, literals, i, j, "r")
            i = j
            continue
        if c == '"' or (c == "'" and not _digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            _mask_literal(out, literals, i, j, "s" if c == '"' else "c")
            i = j
            continue
        i += 1
    return "".join(out), literals


def _digit_separator(text, i):
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum() and \
        re.match(r"\d", text[i + 1]) is not None and re.search(r"\b\d[\w']*$", text[:i]) is not None


def _mask_literal(out, literals, i, j, kind):
    for k in range(i, j):
        if out[k] != "\n":
            out[k] = LITERAL_MASK
    literals.append((i, j, kind))


# ---------------------------------------------------------------------------------------------
# Mutants. Each is a replacement of whole lines [first, last) (0-based) by new lines; its key for
# tests/equivalent-mutants.txt is the file, the operator and the stripped text before and after.


class Mutant:
    def __init__(self, path, op, first, old_lines, new_lines):
        self.path, self.op, self.first = path, op, first
        self.old_lines, self.new_lines = old_lines, new_lines

    @property
    def line(self):  # 1-based, for people
        return self.first + 1

    def key(self):
        return (self.path, self.op, _joined(self.old_lines), _joined(self.new_lines))

    def apply(self, text_lines):
        assert text_lines[self.first:self.first + len(self.old_lines)] == self.old_lines
        return text_lines[:self.first] + self.new_lines + text_lines[self.first + len(self.old_lines):]

    def diff(self, text_lines):
        return "".join(difflib.unified_diff(text_lines, self.apply(text_lines), "a/" + self.path,
                                            "b/" + self.path, n=2))

    def summary(self):
        return f"{self.path}:{self.line} {self.op}: {_joined(self.old_lines)}  ->  {_joined(self.new_lines) or '(deleted)'}"


def _joined(lines):
    return " \\n ".join(l.strip() for l in lines)


def _line_offsets(text):
    offs, pos = [], 0
    for l in text.splitlines(keepends=True):
        offs.append(pos)
        pos += len(l)
    return offs


# The swaps of one name for its opposite: a choice (first or last, least or most) made the other
# way. One table: add a pair here to mutate it.
CHOICE_SWAPS = [
    (r"\.find\(", ".rfind("), (r"\.rfind\(", ".find("),
    (r"\bfind_first_of\(", "find_last_of("), (r"\bfind_last_of\(", "find_first_of("),
    (r"\bfind_first_not_of\(", "find_last_not_of("), (r"\bfind_last_not_of\(", "find_first_not_of("),
    (r"\bstd::min\b", "std::max"), (r"\bstd::max\b", "std::min"),
    (r"\bmin_element\(", "max_element("), (r"\bmax_element\(", "min_element("),
    (r"\.front\(\)", ".back()"), (r"\.back\(\)", ".front()"),
    (r"\bstarts_with\(", "ends_with("), (r"\bends_with\(", "starts_with("),
]

# Binary operators as clang-format writes them: a space on each side (a template's angle brackets
# have none, '->', '<<' and '>>' are other tokens).
REL_BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
REL_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
EQ_FLIP = {"==": "!=", "!=": "=="}
LOGIC_FLIP = {"&&": "||", "||": "&&"}

IDENT_CHAIN = r"[A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*"
# Units of an escaping or quoting literal that the string operator deletes.
SPECIAL_UNITS = re.compile(r"\\[\\\"'nrt0abfv]|\\x[0-9A-Fa-f]{2}|&(?:amp|lt|gt|quot|apos|#\d+);|['\"$`<>&;|]")

OPERATORS = ["rel-boundary", "rel-flip", "eq", "logic", "int", "index", "arm-swap", "ternary-swap",
             "arg-swap", "stmt-delete", "choice-swap", "string-escape", "row-drop"]


def is_test_file(path):
    base = os.path.basename(path)
    return path.startswith("tests/") or "/tests/" in path or base.endswith("_test.cc") or \
        base.endswith("_test.h") or path.startswith("bench/")


# A string literal searched backwards from a position: rfind("needle", …
RFIND_START = re.compile(r'\.rfind\("((?:[^"\\]|\\.)*)",\s*$')
# The declaration of a fixed-size array of a built-in type, up to its "[" (see the int operator).
ARRAY_DECL = re.compile(r"\b(?:char|wchar_t|unsigned|int|long|short|size_t|u?int(?:8|16|32|64)_t|"
                        r"double|float|bool|std::byte)\s+\w+\s*\[\s*$")


# Two uses of find/rfind whose answer the search's direction cannot change, so the swap is always
# equivalent: x.find(needle) compared only with npos (is the needle there? seed 1236 drew two),
# and the starts-with idiom x.rfind(needle, 0) == 0 (from position 0 both find only a match at 0;
# seed 1239 drew one). Other uses are mutated as before.
NPOS_TEST = re.compile(r"\s*(?:==|!=)\s*(?:std::)?(?:\w+::)*npos\b")
ZERO_TEST = re.compile(r"\s*(?:==|!=)\s*0\b")


def direction_irrelevant(code, args_start):
    """Whether the find/rfind call whose arguments open at args_start asks only whether the needle
    is there, or whether the text starts with it."""
    depth, commas = 0, []
    for k in range(args_start, len(code)):
        c = code[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if not commas:
                    return bool(NPOS_TEST.match(code, k + 1))
                second = code[commas[0] + 1:k].strip()
                return len(commas) == 1 and second == "0" and bool(ZERO_TEST.match(code, k + 1))
            depth -= 1
        elif c == "," and depth == 0:
            commas.append(k)
    return False  # the call goes on past the line: mutate it


def _last_break_of_switch(code, mlines, i):
    """A `break;` alone on its line whose next code line is the switch's closing brace (four
    columns left of it, as clang-format indents a case's statements): deleting it falls off the
    end of the switch, which is what it did. Seed 1238 drew one."""
    if code.strip() != "break;":
        return False
    indent = len(code) - len(code.lstrip())
    for nxt in mlines[i + 1:]:
        n = nxt.rstrip("\n")
        if not n.strip():
            continue
        return n.strip() == "}" and len(n) - len(n.lstrip()) == indent - 4
    return False


def generate(path, text, operators=None):
    """Every mutant of text (the contents of path), in the order of the source: deterministic."""
    ops = set(operators or OPERATORS)
    masked, literals = mask_source(text)
    lines = text.splitlines(keepends=True)
    mlines = masked.splitlines(keepends=True)
    offs = _line_offsets(text)
    found = []

    def sub(i, start, end, new, op):  # replace columns [start, end) of line i
        old = lines[i]
        found.append(Mutant(path, op, i, [old], [old[:start] + new + old[end:]]))

    for i, m in enumerate(mlines):
        code = m.rstrip("\n")
        if not code.strip():
            continue
        for mo in re.finditer(r"(?<= )(<=|>=|<|>)(?= )", code):
            if "rel-boundary" in ops:
                sub(i, mo.start(), mo.end(), REL_BOUNDARY[mo.group(1)], "rel-boundary")
            if "rel-flip" in ops:
                sub(i, mo.start(), mo.end(), REL_FLIP[mo.group(1)], "rel-flip")
        if "eq" in ops:
            for mo in re.finditer(r"(?<= )(==|!=)(?= )", code):
                sub(i, mo.start(), mo.end(), EQ_FLIP[mo.group(1)], "eq")
        if "logic" in ops:
            for mo in re.finditer(r"(?<= )(&&|\|\|)(?= )", code):
                sub(i, mo.start(), mo.end(), LOGIC_FLIP[mo.group(1)], "logic")
        if "int" in ops:
            for mo in re.finditer(r"(?<![\w.'])(\d+)([uUlLzZ]*)(?![\w.'])", code):
                # A buffer's size in its declaration ("char buf[64];"): one more or less is
                # equivalent whenever the buffer was big enough, which it is unless a test
                # writes to its limit; seed 1223 drew one. Left out, not counted.
                if re.search(ARRAY_DECL, code[:mo.start()]) and code[mo.end():].lstrip().startswith("]"):
                    continue
                # The starts-with idiom rfind("xy…", 0) == 0: from position 1 it finds the same
                # unless the needle could sit at both 0 and 1, which needs its first two
                # characters equal; seed 1224 drew two of these. Left out, not counted.
                rf = RFIND_START.search(lines[i][:mo.start()])
                if rf and mo.group(1) == "0" and code[mo.end():].lstrip().startswith(")"):
                    needle = rf.group(1)
                    if len(needle) >= 2 and needle[0] != needle[1] and "\\" not in needle[:2]:
                        continue
                v = int(mo.group(1))
                for nv in ([v + 1, v - 1] if v > 0 else [v + 1]):
                    sub(i, mo.start(1), mo.end(1), str(nv), "int")
        if "index" in ops:
            for mo in re.finditer(r"(?<=[\w)\]])\[([^\[\]\x00]+)\]", code):
                inner = mo.group(1)
                if re.fullmatch(r"\s*\d+\s*", inner) or re.search(r"[&=]|\bthis\b", inner):
                    continue
                # Positions, not keys: a map's key plus one mostly does not compile.
                if not re.fullmatch(r"[ijkn]|\w*(?:idx|index|pos|_i|_j)\w*|.*(?:[-+]|size\(\)).*", inner.strip()):
                    continue
                for d in ("+ 1", "- 1"):
                    sub(i, mo.start(1), mo.end(1), f"{inner} {d}", "index")
        if "choice-swap" in ops:
            for pat, new in CHOICE_SWAPS:
                for mo in re.finditer(pat, code):
                    if new in (".find(", ".rfind(") and direction_irrelevant(code, mo.end()):
                        continue
                    sub(i, mo.start(), mo.end(), new, "choice-swap")
        if "arg-swap" in ops:
            for mo in re.finditer(r"(?<=[\w>]\()(" + IDENT_CHAIN + r"), (" + IDENT_CHAIN + r")(?=[,)])", code):
                a, b = mo.group(1), mo.group(2)
                before = code[:mo.start()]
                if a == b or re.search(r"\b(?:if|for|while|switch|catch|return)\s*\($", before):
                    continue
                if re.search(r"\b(?:const|auto|int|bool|double|size_t|std::\w+)\s*$", before.rstrip("(")):
                    continue
                sub(i, mo.start(), mo.end(), f"{b}, {a}", "arg-swap")
        if "ternary-swap" in ops:
            _ternaries(code, lines[i], i, sub)
        if "stmt-delete" in ops:
            st = _statement_span(code)
            if st and not _last_break_of_switch(code, mlines, i):
                sub(i, st[0], st[1], "{}", "stmt-delete")

    if "string-escape" in ops:
        for start, end, kind in literals:
            if kind != "s":
                continue
            i = _line_of(offs, start)
            if i is None or _line_of(offs, end - 1) != i:
                continue
            body = text[start:end]
            q = body.index('"')
            content = body[q + 1:-1]
            units = list(SPECIAL_UNITS.finditer(content))
            if not units or not (len(content) <= 10 or any(u.group(0) == "\\\\" or len(u.group(0)) > 2 for u in units)):
                continue
            u = units[0]
            col = start - offs[i] + q + 1
            sub(i, col + u.start(), col + u.end(), "", "string-escape")

    if "arm-swap" in ops:
        _arm_swaps(path, lines, mlines, found)
    if "row-drop" in ops:
        for i, m in enumerate(mlines):
            if _is_row(m) and ((i > 0 and _is_row(mlines[i - 1])) or (i + 1 < len(mlines) and _is_row(mlines[i + 1]))):
                found.append(Mutant(path, "row-drop", i, [lines[i]], []))

    found.sort(key=lambda mu: (mu.first, OPERATORS.index(mu.op)))
    return found


def _line_of(offs, pos):
    lo, hi = 0, len(offs)
    while lo < hi:
        mid = (lo + hi) // 2
        if offs[mid] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1 if lo else None


def _balanced(s, open_="(", close=")"):
    d = 0
    for ch in s:
        d += (ch == open_) - (ch == close)
        if d < 0:
            return False
    return d == 0


def _statement_span(code):
    """Columns of the one simple statement on this line (an assignment, a call, ++/--, continue,
    break), after an if/else/while header if there is one; None for declarations and others."""
    s = code.rstrip("\n")
    ind = len(s) - len(s.lstrip())
    start = ind
    rest = s[ind:]
    hm = re.match(r"(?:\}\s*)?(?:else\s+)?(?:if|while|for)\s*\(", rest)
    if hm:
        d, j = 0, hm.end() - 1
        while j < len(rest):
            d += (rest[j] == "(") - (rest[j] == ")")
            if d == 0:
                break
            j += 1
        if j >= len(rest):
            return None
        start = ind + j + 1
    elif re.match(r"(?:\}\s*)?else\s", rest):
        start = ind + re.match(r"(?:\}\s*)?else\s+", rest).end()
    stmt = s[start:]
    start += len(stmt) - len(stmt.lstrip())
    stmt = stmt.strip()
    if not stmt.endswith(";") or stmt.count(";") != 1 or not _balanced(stmt) or not _balanced(stmt, "{", "}"):
        return None
    if stmt in ("continue;", "break;"):
        return (start, start + len(stmt))
    if re.match(r"(?:return|throw|goto|case|default|using|typedef|namespace|delete)\b", stmt):
        return None
    if re.match(r"(?:\+\+|--)" + IDENT_CHAIN, stmt) or re.match(
            IDENT_CHAIN + r"(?:\[[^\]]*\])*(?:\(|\s*(?:[-+*/%|&^]?=|<<=|>>=|<<|\+\+|--)(?!=))", stmt):
        # A declaration ('Foo x(1);', 'std::string s = ...') has a second name after the first.
        if re.match(IDENT_CHAIN + r"(?:<[^;]*>)?\s+[A-Za-z_&*]", stmt) and not re.match(
                IDENT_CHAIN + r"\s*(?:[-+*/%|&^]?=|<<|<<=|>>=)", stmt):
            return None
        return (start, start + len(stmt))
    return None


def _ternaries(code, orig, i, sub):
    for mo in re.finditer(r" \? ", code):
        q = mo.start()
        # The second operand: up to ' : ' at the same depth.
        d, j = 0, mo.end()
        colon = None
        while j < len(code):
            ch = code[j]
            if ch in "([{":
                d += 1
            elif ch in ")]}":
                d -= 1
                if d < 0:
                    break
            elif ch == "?" and d == 0:
                break
            elif code.startswith(" : ", j) and d == 0:
                colon = j
                break
            j += 1
        if colon is None:
            continue
        d, k = 0, colon + 3
        while k < len(code):
            ch = code[k]
            if ch in "([{":
                d += 1
            elif ch in ")]}":
                d -= 1
                if d < 0:
                    break
            elif ch in ";,?" and d == 0:
                break
            k += 1
        b_end = colon + 3 + len(code[colon + 3:k].rstrip())
        a, b = orig[mo.end():colon], orig[colon + 3:b_end]
        if not a.strip() or not b.strip() or a.strip() == b.strip() or "\n" in b:
            continue
        sub(i, mo.end(), b_end, f"{b} : {a}", "ternary-swap")


ARM_HEAD = r"(?:case\b[^;]*:|default:|(?:\}\s*)?(?:else\s+)?if\s*\(.*\)|(?:\}\s*)?else)"


def _arm_swaps(path, lines, mlines, found):
    """Adjacent arms (case/if/else) that return different values: the values swapped."""
    arms = []  # (first line, return line, column span of the value)
    for i, m in enumerate(mlines):
        mo = re.match(r"(\s*)" + ARM_HEAD + r"\s*\{?\s*return (.+);\s*\}?\s*$", m.rstrip("\n"))
        if mo:
            g = mo.end(2) - len(mo.group(2)), mo.end(2)
            arms.append((i, i, g))
            continue
        mo = re.match(r"\s*return (.+);\s*$", m.rstrip("\n"))
        if mo and i > 0 and re.match(r"\s*" + ARM_HEAD + r"\s*\{?\s*$", mlines[i - 1].rstrip("\n")):
            arms.append((i - 1, i, (mo.start(1), mo.end(1))))
        elif mo:
            arms.append((i, i, (mo.start(1), mo.end(1))))  # a bare return after the arms
    for (f1, r1, s1), (f2, r2, s2) in zip(arms, arms[1:]):
        gap = f2 - r1
        between = "".join(mlines[r1 + 1:f2]).strip()
        if gap < 1 or gap > 2 or between not in ("", "}"):
            continue
        bare2 = f2 == r2 and not re.match(r"\s*" + ARM_HEAD, mlines[f2])
        if f1 == r1 and not re.match(r"\s*" + ARM_HEAD, mlines[f1]):
            continue  # the first must be an arm
        if bare2 and gap != 1 and between != "}":
            continue
        v1, v2 = lines[r1][s1[0]:s1[1]], lines[r2][s2[0]:s2[1]]
        if v1.strip() == v2.strip():
            continue
        old = lines[f1:r2 + 1]
        new = list(old)
        a, b = r1 - f1, r2 - f1
        new[a] = new[a][:s1[0]] + v2 + new[a][s1[1]:]
        new[b] = new[b][:s2[0]] + v1 + new[b][s2[1]:]
        found.append(Mutant(path, "arm-swap", f1, old, new))


def _is_row(m):
    s = m.strip()
    return bool(re.fullmatch(r"\{.*\},?", s)) and _balanced(s, "{", "}") and s.count("{") >= 1 and \
        not s.startswith("{}")


# ---------------------------------------------------------------------------------------------
# Equivalent mutants marked by a person: tests/equivalent-mutants.txt, blocks of
#   [FILE OPERATOR]
#   from: the changed line(s), stripped (several joined by ' \n ')
#   to: the mutated line(s), the same way
#   why: why no input can tell the mutant apart


def read_equivalents(path):
    keys, cur = set(), None
    if not os.path.exists(path):
        return keys
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                parts = line[1:-1].split()
                if len(parts) != 2 or parts[1] not in OPERATORS:
                    sys.exit(f"{path}:{n}: expected [FILE OPERATOR] with one of: {' '.join(OPERATORS)}")
                cur = {"file": parts[0], "op": parts[1], "line": n}
                continue
            k, sep, v = line.partition(":")
            if cur is None or not sep or k not in ("from", "to", "why"):
                sys.exit(f"{path}:{n}: expected [FILE OPERATOR] or from:/to:/why: lines")
            cur[k] = v.strip()
            if "from" in cur and "to" in cur and "why" in cur:
                keys.add((cur["file"], cur["op"], cur["from"], cur["to"]))
                cur = None
    return keys


# ---------------------------------------------------------------------------------------------
# Which files, and which tests.


def git(*args, cwd=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def changed_files(base):
    if not base:
        try:
            base = git("merge-base", "HEAD", "main").strip()
        except subprocess.CalledProcessError:
            base = ""
        if not base or base == git("rev-parse", "HEAD").strip():
            base = "HEAD~"
    names = git("diff", "--name-only", "--diff-filter=AMR", base, "--").split()
    return base, sorted(f for f in names if re.search(r"\.(cc|h|cpp|hpp)$", f) and f.startswith("src/")
                        and not is_test_file(f) and os.path.exists(f))


def label_for(path):
    """The ctest label of the tests for path's directory (tests/CMakeLists.txt assigns them)."""
    return os.path.dirname(path)


# ---------------------------------------------------------------------------------------------
# The run.


class Runner:
    def __init__(self, args, top):
        self.args, self.top = args, top
        self.work = os.path.join(top, args.dir)
        self.src = os.path.join(self.work, "src")
        self.bld = os.path.join(self.work, "build")
        self.log = os.path.join(self.work, "mutants-last.log")
        self.failed_step = ""

    def lock(self):
        os.makedirs(self.work, exist_ok=True)
        self.lockf = open(os.path.join(self.work, ".lock"), "w")
        try:
            fcntl.flock(self.lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            sys.exit(f"mutants: another run holds {self.work}/.lock")

    def sync(self):
        """The copy gets the checkout's tracked and untracked (not ignored) files; equal files are
        left alone, times too, so the build stays incremental. A file the checkout no longer has
        (moved or deleted) is removed from the copy: left there, a test moved to another
        directory was compiled twice (the glob finds both) and the copy did not build."""
        names = git("ls-files", "-co", "--exclude-standard", "-z", cwd=self.top).split("\0")
        keep = {n for n in names if n}
        for root, _dirs, files in os.walk(self.src):
            for fn in files:
                rel = os.path.relpath(os.path.join(root, fn), self.src)
                if rel not in keep:
                    os.remove(os.path.join(root, fn))
        h = hashlib.sha256()
        for f in sorted(keep):
            p = os.path.join(self.top, f)
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                data = fh.read()
            h.update(f.encode() + b"\0" + hashlib.sha256(data).digest())
            dst = os.path.join(self.src, f)
            try:
                with open(dst, "rb") as fh:
                    same = fh.read() == data
            except OSError:
                same = False
            if not same:
                # Written now, not with the checkout's time: an object built since that time (of
                # the copy's earlier contents) must not look newer than the new contents.
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(p, dst)
                shutil.copymode(p, dst)
        return h.hexdigest()

    def configure(self):
        # libstdc++ assertions (CMakeLists.txt, DOSSIER_LIB_ASSERTIONS): a mutant that makes code
        # read an unknown fact or index past a vector aborts instead of reading stale memory and
        # surviving by luck. A build directory configured before the option is configured again.
        cache = os.path.join(self.bld, "CMakeCache.txt")
        if os.path.exists(os.path.join(self.bld, "build.ninja")) and os.path.exists(cache):
            # And the per-test bound: ctest's --timeout does not override the tests' TIMEOUT
            # property (tests/CMakeLists.txt), so it is configured to --timeout.
            with open(cache) as f:
                text = f.read()
            if ("DOSSIER_LIB_ASSERTIONS:BOOL=ON" in text and
                    "DOSSIER_TEST_TIMEOUT:STRING=%d\n" % self.args.timeout in text):
                return
        # The configuration of scripts/mutation-check.sh: unity batches at -O0. One file per
        # compile rebuilds a mutant quicker, but the cold build parses the heavy headers (CLI11,
        # nlohmann/json, fmt, GoogleTest) once per file: ten times the work (README).
        cmd = ["cmake", "-S", self.src, "-B", self.bld, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=None",
               "-DCMAKE_CXX_FLAGS=-O0", "-DDOSSIER_UNITY=" + os.environ.get("MUTATION_UNITY", "ON"),
               "-DDOSSIER_BENCH=OFF", "-DDOSSIER_LIB_ASSERTIONS=ON",
               "-DDOSSIER_TEST_TIMEOUT:STRING=%d" % self.args.timeout]
        if subprocess.run(cmd, env=self.env(), stdout=subprocess.DEVNULL).returncode:
            sys.exit("mutants: cmake failed to configure " + self.bld)

    def env(self):
        e = dict(os.environ)
        e["CCACHE_BASEDIR"] = self.src
        # A cache of its own: every mutant is an object nobody builds again, and in the shared
        # 5 GB cache they evicted the working builds' objects (mutation-check.sh does the same).
        e["CCACHE_DIR"] = os.environ.get("MUTATION_CCACHE_DIR",
                                         os.path.expanduser("~/.cache/ccache-mutation"))
        e.setdefault("CCACHE_MAXSIZE", "5G")
        return e

    def build(self):
        """0: built; 1: does not compile; 2: built, but the test binary fails to list its tests;
        3: compiled, but a build step that runs the program failed (failed_step names it)."""
        with open(self.log, "w") as lf:
            r = subprocess.run(["ninja", "-C", self.bld, "-j", str(self.args.jobs)], stdout=lf,
                               stderr=subprocess.STDOUT, env=self.env())
        if r.returncode == 0:
            return 0
        text = open(self.log, encoding="utf-8", errors="replace").read()
        # gtest_discover_tests runs the new binary: a mutant that breaks it was built.
        if "Error running test executable" in text:
            return 2
        # The build also runs the binary (the man page is help2man over `dossier CMD --help`):
        # a step that failed with every object compiled is the program misbehaving, not the
        # compiler refusing. Seed 1237 counted three such mutants as not compiling.
        failed = re.findall(r"^FAILED: (\S+)", text, re.M)
        if failed and not any(f.endswith((".o", ".obj")) for f in failed):
            self.failed_step = failed[0]
            return 3
        return 1

    def first_error(self):
        """The build log's first error: why a mutant did not compile."""
        try:
            for line in open(self.log, encoding="utf-8", errors="replace"):
                if " error: " in line or line.startswith("error:"):
                    return line.strip()[-200:]
        except OSError:
            pass
        return "see the build log"

    def ctest(self, label=None, exclude=None, timeout=None):
        """True when every selected test passed. Each test is bounded (a mutant can loop)."""
        cmd = ["ctest", "--test-dir", self.bld, "-j", str(self.args.jobs), "--timeout", str(self.args.timeout),
               "--stop-on-failure", "-E", "^MutantsScript\\."]
        if label:
            cmd += ["-L", "^" + re.escape(label) + "$"]
        if exclude:
            cmd += ["-LE", "^" + re.escape(exclude) + "$"]
        with open(self.log, "w") as lf:
            try:
                r = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout)
            except subprocess.TimeoutExpired:
                return False
        return r.returncode == 0

    def first_failure(self):
        try:
            text = open(self.log, encoding="utf-8", errors="replace").read()
        except OSError:
            return ""
        mo = re.search(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.+\*{0,3}(Failed|Timeout|Exception|SEGFAULT|Subprocess aborted|\*+Failed|\*+Timeout|\*+Exception)", text, re.M)
        if mo:
            return mo.group(1) + (" (timeout)" if "Timeout" in mo.group(2) else "")
        # "The following tests FAILED:" lists them so; "did not run" lists skipped ones the same way.
        mo = re.search(r"^\s*\d+ - (\S+) \((?!Skipped|Not Run)\w+", text, re.M)
        return mo.group(1) if mo else ""


def spread_sample(files, per_file, want, rng):
    """`want` mutants spread over the files in turn, each file's own order shuffled by rng, so that
    every file a change touched gets its share. With more files than mutants, the turn goes round
    the files in an order rng shuffles: in the files' own order the first `want` files alone
    (alphabetically) were ever sampled. With as many mutants as files or more, every file gets its
    share in either order and the order is kept, so earlier seeds give the same sample."""
    queues = {f: rng.sample(per_file[f], len(per_file[f])) for f in files}
    order = rng.sample(files, len(files)) if want < len(files) else files
    sample = []
    while len(sample) < want:
        for f in order:
            if queues[f] and len(sample) < want:
                sample.append(queues[f].pop())
    return sample


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="source files to mutate (relative to the checkout)")
    ap.add_argument("--changed", action="store_true",
                    help="the src/ files changed since --base (with the working tree's changes)")
    ap.add_argument("--base", help="git revision (default: the merge base with main, or HEAD~ on main)")
    ap.add_argument("--sample", type=int, default=20, help="mutants to run, spread over the files (0: all)")
    ap.add_argument("--seed", type=int, help="seed of the sample (default: random, printed)")
    ap.add_argument("--operators", help="comma-separated subset of: " + ",".join(OPERATORS))
    ap.add_argument("--pick", help="run only these of the sample, by the numbers a run prints "
                                   "(1,4,9): the survivors again, after a test was added")
    ap.add_argument("--list", action="store_true", help="print the sampled mutants and stop (no build)")
    ap.add_argument("--diff", action="store_true", help="with --list: each mutant as a diff")
    ap.add_argument("--dir", default=os.environ.get("MUTATION_DIR", "build-mutation"),
                    help="the copy and its build (default build-mutation, as mutation-check.sh)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")), help="ninja and ctest -j")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per test before it counts as failed")
    ap.add_argument("--labelled-only", action="store_true",
                    help="judge each mutant by its directory's labelled tests alone (quicker: a "
                         "survivor may still be killed by the rest of the suite)")
    ap.add_argument("--equivalents", default="tests/equivalent-mutants.txt")
    ap.add_argument("--target", type=float, default=80.0, help="per-file score (%%) below which the exit is 1")
    args = ap.parse_args()

    top = git("rev-parse", "--show-toplevel").strip()
    os.chdir(top)
    ops = args.operators.split(",") if args.operators else OPERATORS
    for o in ops:
        if o not in OPERATORS:
            ap.error(f"unknown operator {o!r}; known: {', '.join(OPERATORS)}")
    files = list(args.files)
    if args.changed:
        base, ch = changed_files(args.base)
        print(f"mutants: files changed since {base}: {len(ch)}", file=sys.stderr)
        files += ch
    if not files:
        ap.error("no files: name some, or --changed")
    files = sorted(set(os.path.relpath(os.path.abspath(f), top) for f in files))
    for f in files:
        if not os.path.isfile(f):
            ap.error(f"{f}: no such file")
    tests = [f for f in files if is_test_file(f)]
    if tests:  # mutants are of the code the tests check
        print(f"mutants: test files skipped: {' '.join(tests)}", file=sys.stderr)
        files = [f for f in files if f not in tests]
    if not files:
        ap.error("no file to mutate")

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big") % 1000000
    rng = random.Random(seed)
    equivalents = read_equivalents(args.equivalents)
    texts, per_file = {}, {}
    for f in files:
        texts[f] = open(f, encoding="utf-8").read()
        per_file[f] = generate(f, texts[f], ops)
    total = sum(len(v) for v in per_file.values())
    want = total if args.sample <= 0 else min(args.sample, total)
    sample = spread_sample(files, per_file, want, rng)
    sample.sort(key=lambda m: (m.path, m.first, OPERATORS.index(m.op)))
    print(f"mutants: seed {seed}; {total} mutants in {len(files)} file(s), {len(sample)} sampled", file=sys.stderr)

    numbered = list(enumerate(sample, 1))
    if args.pick:
        try:
            keep = {int(x) for x in args.pick.split(",")}
        except ValueError:
            ap.error("--pick: numbers separated by commas")
        numbered = [(n, m) for n, m in numbered if n in keep]

    if args.list:
        for n, m in numbered:
            eq = "  [equivalent]" if m.key() in equivalents else ""
            print(f"[{n}] " + m.summary() + eq)
            if args.diff:
                print(m.diff(texts[m.path].splitlines(keepends=True)))
        return 0

    # Stopped by SIGTERM or SIGINT (even when started in the background, where SIGINT is
    # ignored): the mutated file is restored by the finally below before the run ends.
    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    run = Runner(args, top)
    run.lock()
    tree = run.sync()
    run.configure()
    t0 = time.time()
    print(f"mutants: building the unmutated sources in {run.bld}", file=sys.stderr)
    if run.build():
        sys.exit(f"mutants: the unmutated sources do not build; see {run.log}")
    # The whole suite must pass without a mutant; remembered for this tree's contents.
    # With --labelled-only, the labelled tests of each sampled file's directory.
    stamp = os.path.join(run.work, "mutants-baseline-ok")
    done = set(open(stamp).read().split()[1:]) if os.path.exists(stamp) and \
        open(stamp).read().split()[:1] == [tree] else set()
    wanted = sorted({label_for(m.path) for _, m in numbered}) if args.labelled_only else ["*"]
    for label in wanted:
        if label in done or "*" in done:
            continue
        print(f"mutants: running {'the whole suite' if label == '*' else 'the tests labelled ' + label}"
              " on the unmutated sources", file=sys.stderr)
        if not run.ctest(label=None if label == "*" else label):
            sys.exit(f"mutants: the tests fail without a mutant; see {run.log}")
        done.add(label)
        with open(stamp, "w") as fh:
            fh.write(" ".join([tree] + sorted(done)) + "\n")
    print(f"mutants: baseline ready ({time.time() - t0:.0f} s)", file=sys.stderr)

    results = []  # (mutant, verdict, detail, seconds)
    for n, m in numbered:
        t1 = time.time()
        if m.key() in equivalents:
            results.append((m, "equivalent", "", 0.0))
            print(f"[{n}/{len(sample)}] EQUIVALENT {m.summary()}", file=sys.stderr)
            continue
        dst = os.path.join(run.src, m.path)
        pristine = texts[m.path]
        lines = pristine.splitlines(keepends=True)
        with open(dst, "w", encoding="utf-8") as fh:
            fh.write("".join(m.apply(lines)))
        detail = ""
        try:
            b = run.build()
            if b == 1:
                verdict, detail = "no-compile", run.first_error()
            elif b == 2:
                verdict, detail = "killed", "the test binary fails to start"
            elif b == 3:
                verdict, detail = "killed", f"the build step {run.failed_step}, which runs the program"
            else:
                label = label_for(m.path)
                limit = args.timeout * 20
                if not run.ctest(label=label, timeout=limit):
                    verdict, detail = "killed", run.first_failure() + f" [{label}]"
                elif args.labelled_only:
                    verdict, detail = "survived", f"the tests labelled {label} only"
                elif not run.ctest(exclude=label, timeout=limit * 5):
                    verdict, detail = "killed", run.first_failure() + " [whole suite]"
                else:
                    verdict = "survived"
        finally:
            with open(dst, "w", encoding="utf-8") as fh:
                fh.write(pristine)
            os.utime(dst)  # newer than the mutant's object: the next build recompiles it
        secs = time.time() - t1
        results.append((m, verdict, detail, secs))
        print(f"[{n}/{len(sample)}] {verdict.upper():10} {secs:5.0f} s  {m.summary()}"
              + ((f"  ({detail})" if verdict == "no-compile" else f"  by {detail}") if detail else ""),
              file=sys.stderr)
    run.build()  # leave the copy's build unmutated

    print(f"\nmutants: seed {seed}, {len(results)} mutants of {total}, {time.time() - t0:.0f} s")
    worst = 100.0
    for f in files:
        rs = [r for r in results if r[0].path == f]
        if not rs:
            continue
        c = {v: sum(1 for r in rs if r[1] == v) for v in ("killed", "survived", "no-compile", "equivalent")}
        judged = c["killed"] + c["survived"]
        score = 100.0 * c["killed"] / judged if judged else 100.0
        worst = min(worst, score)
        print(f"  {f}: {c['killed']}/{judged} killed ({score:.0f} %), {c['no-compile']} do not compile, "
              f"{c['equivalent']} equivalent")
    ran = [r[3] for r in results if r[1] != "equivalent"]
    if ran:
        print(f"  {sum(ran) / len(ran):.0f} s per mutant")
    survivors = [r for r in results if r[1] == "survived"]
    for m, _, detail, _ in survivors:
        print(f"\nsurvived{' ' + detail if detail else ''}: {m.summary()}")
        print(m.diff(texts[m.path].splitlines(keepends=True)), end="")
    return 0 if worst >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
