"""Loading a shared library by the first name that loads (shipped in every
package `kforge export --to torch` writes, as _loadlib.py; the backends'
callers use it for the libraries they call through ctypes)."""
import ctypes


def load_first(names):
    """(library, the name it was loaded by, errors) for the first of `names`
    that ctypes loads; (None, None, errors) when none does.  errors lists
    "name: why" for every name that failed before it, so a caller can say
    where it looked."""
    errors = []
    for n in names:
        try:
            return ctypes.CDLL(n), n, errors
        except OSError as e:
            errors.append("%s: %s" % (n, e))
    return None, None, errors
