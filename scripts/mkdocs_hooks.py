"""MkDocs hooks (mkdocs.yml `hooks:`): the pages the site builds from the repository's own files.

- reference/commands.md is rendered from clients/spec/command_table.json on every build
  (scripts/command_reference.py), so it cannot drift from the module's table;
- bench/results/latest.png, which bench/results/latest.md shows, is served beside the
  performance page that includes that file.
"""

import pathlib
import sys

from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import command_reference  # noqa: E402  (found through the path above)


def on_files(files, config):
    files.append(File.generated(config, "reference/commands.md", content=command_reference.render()))
    files.append(File.generated(config, "performance/latest.png", abs_src_path=str(ROOT / "bench/results/latest.png")))
    return files
