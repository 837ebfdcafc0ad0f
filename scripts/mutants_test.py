#!/usr/bin/env python3
"""Self-tests of scripts/mutants.py's generator: each operator on small snippets gives the mutant
expected, and comments, string literals (but for the escaping operator), preprocessor lines and
test files are left alone. Run by ctest (MutantsScript.SelfTest) and by hand:
python3 scripts/mutants_test.py"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutants as M  # noqa: E402


def mutated(src, op):
    """Each mutant of src by op, as the whole mutated text."""
    lines = src.splitlines(keepends=True)
    return ["".join(m.apply(lines)) for m in M.generate("src/x/x.cc", src, [op])]


class Operators(unittest.TestCase):
    def test_relational_boundary_and_flip(self):
        src = "bool f(int a, int b) { return a < b; }\n"
        self.assertEqual(mutated(src, "rel-boundary"), ["bool f(int a, int b) { return a <= b; }\n"])
        self.assertEqual(mutated(src, "rel-flip"), ["bool f(int a, int b) { return a > b; }\n"])
        self.assertEqual(mutated("x = a >= b;\n", "rel-boundary"), ["x = a > b;\n"])
        self.assertEqual(mutated("x = a >= b;\n", "rel-flip"), ["x = a <= b;\n"])

    def test_template_brackets_shifts_and_arrows_are_not_comparisons(self):
        src = "std::vector<int> v; a->b(); out << x >> y; std::map<int, std::vector<int>> m;\n"
        self.assertEqual(mutated(src, "rel-boundary"), [])
        self.assertEqual(mutated(src, "rel-flip"), [])

    def test_equality_and_logic(self):
        self.assertEqual(mutated("if (a == b && c != d) g();\n", "eq"),
                         ["if (a != b && c != d) g();\n", "if (a == b && c == d) g();\n"])
        self.assertEqual(mutated("if (a == b && c != d) g();\n", "logic"), ["if (a == b || c != d) g();\n"])
        # An rvalue reference is not a logical and.
        self.assertEqual(mutated("void f(T&& t);\n", "logic"), [])

    def test_integer_literals_up_and_down(self):
        self.assertEqual(mutated("int x = 7;\n", "int"), ["int x = 8;\n", "int x = 6;\n"])
        self.assertEqual(mutated("int x = 0;\n", "int"), ["int x = 1;\n"])
        # A buffer's declared size is left alone; an element read at a literal index is not.
        self.assertEqual(mutated("  char buf[64];\n  unsigned char mac[6] = {};\n", "int"), [])
        self.assertEqual(mutated("  return buf[3];\n", "int"), ["  return buf[4];\n", "  return buf[2];\n"])
        # rfind("xy", 0) == 0 from 1 is the same test; with "aa" (which can sit at 0 and 1) it is not.
        self.assertEqual(mutated('  if (s.rfind("0x", 0) == 0) return;\n', "int"),
                         ['  if (s.rfind("0x", 0) == 1) return;\n'])
        self.assertEqual(mutated('  if (s.rfind("//", 0) == 0) return;\n', "int"),
                         ['  if (s.rfind("//", 1) == 0) return;\n', '  if (s.rfind("//", 0) == 1) return;\n'])
        # Not a float, a hex literal, part of a name or a digit-separated literal's piece.
        self.assertEqual(mutated("double d = 1.5 + 2e3; int h = 0x10; int v2 = 1'000;\n", "int"), [])

    def test_index_plus_and_minus_one(self):
        self.assertEqual(mutated("y = v[i];\n", "index"), ["y = v[i + 1];\n", "y = v[i - 1];\n"])
        # A literal index is the integer operator's; lambdas and map keys are left alone.
        self.assertEqual(mutated("y = v[0]; auto f = [&](int i) { return i; }; m[name] = 1;\n", "index"), [])

    def test_adjacent_case_arms_returning_different_values_swap(self):
        src = ("switch (k) {\n"
               "  case A:\n"
               "    return \"a\";\n"
               "  case B:\n"
               "    return \"b\";\n"
               "}\n")
        self.assertEqual(mutated(src, "arm-swap"), [src.replace('"a"', "@").replace('"b"', '"a"').replace("@", '"b"')])
        one_line = "if (x) return 1;\nif (y) return 2;\nreturn 1;\n"
        self.assertEqual(mutated(one_line, "arm-swap"), [
            "if (x) return 2;\nif (y) return 1;\nreturn 1;\n",
            "if (x) return 1;\nif (y) return 1;\nreturn 2;\n"])
        # Arms returning the same value: nothing to swap.
        self.assertEqual(mutated("if (x) return 1;\nif (y) return 1;\n", "arm-swap"), [])

    def test_ternary_operands_swap(self):
        self.assertEqual(mutated("int v = c ? f(1, 2) : 3;\n", "ternary-swap"), ["int v = c ? 3 : f(1, 2);\n"])

    def test_adjacent_identifier_arguments_swap(self):
        self.assertEqual(mutated("auto r = Span(first, last);\n", "arg-swap"), ["auto r = Span(last, first);\n"])
        # Conditions and declarations are not calls; equal arguments give nothing.
        self.assertEqual(mutated("if (a, b) g(x, x);\n", "arg-swap"), [])

    def test_statement_and_continue_deleted(self):
        self.assertEqual(mutated("  total += n;\n", "stmt-delete"), ["  {}\n"])
        self.assertEqual(mutated("  if (skip) continue;\n", "stmt-delete"), ["  if (skip) {}\n"])
        self.assertEqual(mutated("  out.push_back(x);\n", "stmt-delete"), ["  {}\n"])
        # Declarations and returns stay.
        self.assertEqual(mutated("  std::string s = f(x);\n  int n(3);\n  return n;\n", "stmt-delete"), [])

    def test_choice_swaps(self):
        self.assertEqual(mutated("auto p = s.find(':');\n", "choice-swap"), ["auto p = s.rfind(':');\n"])
        self.assertEqual(mutated("int m = std::min(a, b);\n", "choice-swap"), ["int m = std::max(a, b);\n"])
        self.assertEqual(mutated("auto& g = v.front();\n", "choice-swap"), ["auto& g = v.back();\n"])

    def test_find_tested_only_against_npos_keeps_its_direction(self):
        # Whether the needle is there: the direction cannot change it, so no mutant.
        self.assertEqual(mutated("  bool c = t.find(':') != std::string_view::npos;\n", "choice-swap"), [])
        self.assertEqual(mutated("  if (s.rfind(f(a, b)) == npos) return;\n", "choice-swap"), [])
        # The starts-with idiom: from 0, both directions find only a match at 0.
        self.assertEqual(mutated('  if (kind.rfind("finding", 0) == 0) return;\n', "choice-swap"), [])
        self.assertEqual(mutated('  if (kind.find("finding", 0) != 0) return;\n', "choice-swap"), [])
        self.assertEqual(mutated('  if (kind.rfind("finding", 3) == 0) return;\n', "choice-swap"),
                         ['  if (kind.find("finding", 3) == 0) return;\n'])
        # A start position, or a position used, is mutated.
        self.assertEqual(mutated("  bool c = t.find(':', 3) != std::string::npos;\n", "choice-swap"),
                         ["  bool c = t.rfind(':', 3) != std::string::npos;\n"])
        self.assertEqual(mutated("  size_t c = t.find(':') + 1;\n", "choice-swap"),
                         ["  size_t c = t.rfind(':') + 1;\n"])

    def test_the_last_break_of_a_switch_is_not_deleted(self):
        switch = ("  switch (k) {\n    case 1:\n      x = 1;\n      break;\n    case 2:\n"
                  "      x = 2;\n      break;\n  }\n")
        got = mutated(switch, "stmt-delete")
        # The first case's break (falling into case 2 changes x) and both assignments; not the last break.
        self.assertEqual(len(got), 3, got)
        self.assertIn(switch.replace("      x = 1;\n      break;", "      x = 1;\n      {}", 1), got)
        # A break that closes an if inside a case still is deleted (the case's code goes on).
        nested = "    case 1:\n      if (a) {\n        break;\n      }\n      x = 1;\n"
        self.assertIn(nested.replace("        break;", "        {}"), mutated(nested, "stmt-delete"))

    def test_escaping_literal_loses_a_character(self):
        self.assertEqual(mutated('out += "\'\\\\\'\'";\n', "string-escape"), ['out += "\\\\\'\'";\n'])
        self.assertEqual(mutated('x = "&amp;";\n', "string-escape"), ['x = "";\n'])
        # A plain message is not an escaping literal.
        self.assertEqual(mutated('why = "no such file";\n', "string-escape"), [])

    def test_table_row_dropped(self):
        src = "const Row kRows[] = {\n    {\"a\", 1},\n    {\"b\", 2},\n};\n"
        self.assertEqual(mutated(src, "row-drop"), [
            "const Row kRows[] = {\n    {\"b\", 2},\n};\n",
            "const Row kRows[] = {\n    {\"a\", 1},\n};\n"])


class Skipped(unittest.TestCase):
    def test_comments_strings_and_preprocessor_lines_are_not_mutated(self):
        src = ('// a < b && c == 1\n'
               '/* x[i] = std::min(a, b);\n   total += 1; */\n'
               '#define LIMIT(a, b) ((a) < (b) ? 1 : 2)\n'
               '#if X > 1 \\\n  && Y == 2\n#endif\n'
               'const char* s = "a < b && c == 1 ? x : y";\n'
               'const char* r = R"(a < b, total += 1;)";\n'
               'char c = \'<\';\n')
        found = M.generate("src/x/x.cc", src)
        self.assertEqual([m.summary() for m in found], [])

    def test_test_files_are_test_files(self):
        for p in ("src/import/foo_test.cc", "tests/cli_test.cc", "tests/standins/a.cc", "bench/x_bench.cc"):
            self.assertTrue(M.is_test_file(p), p)
        self.assertFalse(M.is_test_file("src/import/foo.cc"))
        self.assertFalse(M.is_test_file("src/cli/serve_bench.cc"))  # a command, not a benchmark


class Sample(unittest.TestCase):
    def test_more_files_than_mutants_reaches_past_the_first_files(self):
        files = [f"src/x/f{i:02}.cc" for i in range(30)]
        per_file = {f: [f + ":1", f + ":2"] for f in files}
        chosen = set()
        for seed in range(20):
            got = M.spread_sample(files, per_file, 5, M.random.Random(seed))
            self.assertEqual(len(got), 5)
            self.assertEqual(len({m.split(":")[0] for m in got}), 5)  # one per file
            chosen |= {m.split(":")[0] for m in got}
        self.assertGreater(len(chosen - set(files[:5])), 10)

    def test_every_file_gets_its_share_and_a_seed_gives_one_sample(self):
        files = ["src/a.cc", "src/b.cc", "src/c.cc"]
        per_file = {f: [f"{f}:{i}" for i in range(10)] for f in files}
        got = M.spread_sample(files, per_file, 7, M.random.Random(4))
        self.assertEqual(sorted(sum(1 for m in got if m.startswith(f)) for f in files), [2, 2, 3])
        self.assertEqual(got, M.spread_sample(files, per_file, 7, M.random.Random(4)))
        self.assertEqual(len(M.spread_sample(files, per_file, 30, M.random.Random(1))), 30)


class Sync(unittest.TestCase):
    def test_the_copy_follows_the_checkout_files_moved_or_deleted_included(self):
        with tempfile.TemporaryDirectory() as top:
            run = lambda *a: subprocess.run(["git", *a], cwd=top, check=True, capture_output=True)
            run("init", "-q")
            os.makedirs(os.path.join(top, "src/a"))
            for f in ("src/a/x_test.cc", "src/a/keep.cc"):
                with open(os.path.join(top, f), "w") as fh:
                    fh.write(f)
            with open(os.path.join(top, ".gitignore"), "w") as fh:
                fh.write("build-mutation/\n")
            args = M.argparse.Namespace(dir="build-mutation")
            r = M.Runner(args, top)
            r.sync()
            self.assertTrue(os.path.exists(os.path.join(r.src, "src/a/x_test.cc")))
            os.makedirs(os.path.join(top, "src/a/b"))
            os.rename(os.path.join(top, "src/a/x_test.cc"), os.path.join(top, "src/a/b/x_test.cc"))
            r.sync()
            self.assertFalse(os.path.exists(os.path.join(r.src, "src/a/x_test.cc")))
            self.assertTrue(os.path.exists(os.path.join(r.src, "src/a/b/x_test.cc")))
            self.assertTrue(os.path.exists(os.path.join(r.src, "src/a/keep.cc")))


class Run(unittest.TestCase):
    def test_list_is_deterministic_for_a_seed_and_honours_equivalents(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["git", "init", "-q", d], check=True)
            os.makedirs(os.path.join(d, "src/x"))
            with open(os.path.join(d, "src/x/a.cc"), "w") as f:
                f.write("int f(int a, int b) {\n  if (a < b) return 1;\n  return a == b ? 2 : 3;\n}\n")
            eq = os.path.join(d, "eq.txt")
            with open(eq, "w") as f:
                f.write("[src/x/a.cc eq]\nfrom: return a == b ? 2 : 3;\nto: return a != b ? 2 : 3;\n"
                        "why: a test of the file format\n")
            cmd = [sys.executable, os.path.join(here, "mutants.py"), "src/x/a.cc", "--list", "--sample", "4",
                   "--seed", "11", "--equivalents", eq]
            one = subprocess.run(cmd, cwd=d, capture_output=True, text=True, check=True)
            two = subprocess.run(cmd, cwd=d, capture_output=True, text=True, check=True)
            self.assertEqual(one.stdout, two.stdout)
            self.assertIn("seed 11", one.stderr)
            self.assertEqual(len(one.stdout.splitlines()), 4)
            every = subprocess.run(cmd[:-5] + ["0", "--equivalents", eq], cwd=d, capture_output=True,
                                   text=True, check=True).stdout
            self.assertIn("return a == b ? 2 : 3;  ->  return a != b ? 2 : 3;  [equivalent]", every)
            self.assertEqual(every.count("[equivalent]"), 1)


if __name__ == "__main__":
    unittest.main()
