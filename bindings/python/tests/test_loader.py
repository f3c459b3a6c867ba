"""Finding libndrt: NDRT_LIBRARY, next to the package, the system; the ABI version check."""
import os
import shutil
import tempfile
import unittest

import ndrt
from ndrt import _lib
from common import run_python, PKG_DIR

REPORT = "import ndrt; print('PATH', ndrt.library_path); print('ABI', ndrt.abi_version())"


class LoaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib_path = ndrt.library_path  # the file this process loaded

    def test_env_var_path_is_used(self):
        env_lib = os.environ.get("NDRT_LIBRARY")
        if env_lib:  # under ctest NDRT_LIBRARY names the build's library
            self.assertEqual(os.path.realpath(ndrt.library_path), os.path.realpath(env_lib))
        r = run_python(REPORT, env={"NDRT_LIBRARY": self.lib_path})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("PATH " + os.path.realpath(self.lib_path), r.stdout)

    def test_env_var_may_name_a_folder(self):
        with tempfile.TemporaryDirectory() as d:
            os.symlink(self.lib_path, os.path.join(d, "libndrt.so"))
            r = run_python(REPORT, env={"NDRT_LIBRARY": d})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("PATH " + os.path.realpath(self.lib_path), r.stdout)

    def test_env_var_wins_and_does_not_fall_back(self):
        r = run_python(REPORT, env={"NDRT_LIBRARY": "/nonexistent/libndrt.so"})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError", r.stderr)
        self.assertIn("NDRT_LIBRARY=/nonexistent/libndrt.so could not be loaded", r.stderr)

    def test_env_var_naming_another_library(self):
        libm = "/lib/x86_64-linux-gnu/libm.so.6"
        if not os.path.exists(libm):
            self.skipTest("no %s on this machine" % libm)
        r = run_python(REPORT, env={"NDRT_LIBRARY": libm})
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is not libndrt", r.stderr)

    def test_library_next_to_the_package(self):
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "ndrt")
            shutil.copytree(os.path.join(PKG_DIR, "ndrt"), pkg, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(self.lib_path, os.path.join(pkg, "libndrt.so"))
            r = run_python("import sys; sys.path.insert(0, %r); " % d + REPORT + "; print('FILE', ndrt.__file__)",
                           env={"NDRT_LIBRARY": None})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("PATH " + os.path.realpath(os.path.join(pkg, "libndrt.so")), r.stdout)
            self.assertIn("FILE " + os.path.join(pkg, "__init__.py"), r.stdout)

    def test_not_found_lists_what_was_tried(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(PKG_DIR, "ndrt"), os.path.join(d, "ndrt"),
                            ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
            r = run_python("import sys; sys.path.insert(0, %r); import ndrt" % d,
                           env={"NDRT_LIBRARY": None, "LD_LIBRARY_PATH": None})
            if r.returncode == 0:
                self.skipTest("a system-wide libndrt is installed")
            self.assertIn("libndrt not found. Set NDRT_LIBRARY", r.stderr)
            self.assertIn("system loader", r.stderr)

    def test_abi_mismatch_message(self):
        saved = _lib.EXPECTED_ABI
        _lib.EXPECTED_ABI = saved + 1  # simulate a package written for a newer ABI
        try:
            with self.assertRaises(ImportError) as cm:
                _lib.load()
        finally:
            _lib.EXPECTED_ABI = saved
        e = cm.exception
        self.assertIsInstance(e, ndrt.AbiMismatchError)
        self.assertEqual((e.library_abi, e.expected_abi), (saved, saved + 1))
        msg = str(e)
        self.assertIn("has ABI version %d" % saved, msg)
        self.assertIn("written for ABI version %d" % (saved + 1), msg)
        # and the matching version loads
        lib, path = _lib.load()
        self.assertEqual(lib.ndrt_abi_version(), _lib.EXPECTED_ABI)

    def test_abi_mismatch_at_import(self):
        # A fresh interpreter whose package expects another ABI refuses to import.
        r = run_python("import ndrt._lib", env={})
        self.assertEqual(r.returncode, 0, r.stderr)
        code = ("import builtins, sys\n"
                "src = open(%r).read().replace('EXPECTED_ABI = 1\\n', 'EXPECTED_ABI = 7\\n')\n"
                "import types; m = types.ModuleType('ndrt_lib_copy'); m.__file__ = %r\n"
                "try:\n"
                "    exec(compile(src, %r, 'exec'), m.__dict__)\n"
                "except ImportError as e:\n"
                "    print('IMPORT ERROR:', e)\n") % (_lib.__file__, _lib.__file__, _lib.__file__)
        r = run_python(code)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("IMPORT ERROR:", r.stdout)
        self.assertIn("has ABI version 1 but this Python package was written for ABI version 7", r.stdout)

    def test_every_declared_function_has_argtypes(self):
        for name, (res, args) in _lib.SIGNATURES.items():
            fn = getattr(_lib.lib, name)
            self.assertEqual(fn.argtypes, args, name)
            self.assertIs(fn.restype, res, name)

    def test_optional_functions_have_argtypes(self):
        # Declared when the library has them (ndrt.distributed raises NotConfiguredError otherwise).
        for name, (res, args) in _lib.OPTIONAL_SIGNATURES.items():
            if name in _lib.missing_optional:
                continue
            fn = getattr(_lib.lib, name)
            self.assertEqual(fn.argtypes, args, name)
            self.assertIs(fn.restype, res, name)


class DistributedNotConfiguredTest(unittest.TestCase):
    """ndrt.distributed where collectives cannot run (the MPI tests themselves run under mpirun)."""

    def test_missing_mpi_module(self):
        r = run_python("import ndrt, ndrt.distributed as d\n"
                       "print('AVAILABLE', d.is_available())\n"
                       "try:\n"
                       "    d.allreduce(ndrt.zeros((2,)))\n"
                       "except ndrt.NotConfiguredError as e:\n"
                       "    print('ERROR', e.status_name, e)\n",
                       env={"NDRT_MPI_BACKEND": "/nonexistent/libndrt_mpi.so"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("AVAILABLE False", r.stdout)
        self.assertIn("ERROR NDRT_ERR_NOT_CONFIGURED", r.stdout)
        self.assertIn("/nonexistent/libndrt_mpi.so", r.stdout)

    def test_library_without_the_distributed_api(self):
        import ndrt.distributed as d
        saved = set(_lib.missing_optional)
        _lib.missing_optional.add("ndrt_comm_world")
        try:
            with self.assertRaises(ndrt.NotConfiguredError) as cm:
                d.Communicator.world()
            self.assertIn("ndrt_comm_world", str(cm.exception))
            self.assertIsNone(d._world)  # nothing here made the shared world communicator
            self.assertFalse(d.is_available())
        finally:
            _lib.missing_optional.clear()
            _lib.missing_optional.update(saved)


if __name__ == "__main__":
    unittest.main()
