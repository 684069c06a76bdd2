"""winlimit_version (FCALL winlimit_version 0; EVALSHA <sha> 0 winlimit_version on 6.2) is
Cargo.toml's version, the module's: the two editions are released together."""

from kit import editions
from kit.lua_library import Library, library_text, script_text
from kit.server import CARGO_VERSION, REDIS_62

pytestmark = editions.module_only("it loads the library itself: one run, in the module edition")


def test_the_library_reports_cargo_tomls_version(r):
    library = Library(r, scripts=REDIS_62)
    assert library.version(r) == CARGO_VERSION.encode()


def test_the_script_is_the_library_without_its_first_line():
    library, script = library_text().splitlines(), script_text().splitlines()
    assert library[0] == "#!lua name=winlimit"
    assert not script[0].startswith("#!") and script[1:] == library[1:]
