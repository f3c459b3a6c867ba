"""Runs the Python binding's unittest modules and prints `N passed, N failed, N skipped`.

    /usr/bin/python3 run_tests.py [module ...]     (default: every test_*.py here)

Exit status 1 when any test fails or errors (ctest reads it), 0 otherwise.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class _Result(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def main(argv):
    sys.path.insert(0, HERE)
    names = argv or sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py"))
    suite = unittest.TestSuite()
    loader = unittest.defaultTestLoader
    for n in names:
        suite.addTests(loader.loadTestsFromName(n[:-3] if n.endswith(".py") else n))
    runner = unittest.TextTestRunner(verbosity=2, resultclass=_Result, stream=sys.stdout)
    r = runner.run(suite)
    failed = len(r.failures) + len(r.errors) + len(r.unexpectedSuccesses)
    for test, why in r.skipped:
        print("SKIPPED %s: %s" % (test.id(), why))
    print("%s: %d passed, %d failed, %d skipped" % (" ".join(names), r.passed, failed, len(r.skipped)))
    return 1 if failed or r.testsRun == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
