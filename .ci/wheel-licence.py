"""Make a repaired wheel's metadata state the licences of what the wheel contains.

usage: python .ci/wheel-licence.py WHEEL [WHEEL ...]   (rewrites each wheel in place)

pyproject.toml's ``license`` is the licence of ropelab's source (BSD-3-Clause), and it is what the
sdist and a wheel built from it say. A binary wheel, once ``auditwheel repair`` (Linux) or
``delocate-wheel`` (macOS) has copied shared libraries into it, contains more:

- code compiled in from headers, in every binary: Eigen (MPL-2.0), Boost.Math (BSL-1.0),
  Random123 and pybind11 (BSD-3-Clause, as ropelab);
- each library in ``ropelab.libs/`` or ``ropelab/.dylibs/``, by file-name prefix (BUNDLED below);
  a library not in that table stops the script: its licence must be added here, to
  licenses/ and to docs/install.md first;
- libstdc++ when the extension links it statically (no ``libstdc++`` among its ELF NEEDED
  entries: ``make wheel``'s -DROPELAB_PORTABLE_GLIBC=ON build).

The script sets METADATA's ``License-Expression`` to the SPDX ``AND`` of those (each licence
once), leaves the ``License-File`` entries alone (every distribution carries all texts in
licenses/), and records METADATA's new hash and size in RECORD. It is idempotent.
tests/test_installed.py derives the expected expression from the installed wheel's files.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import sys
import tempfile
import zipfile

SOURCE = "BSD-3-Clause"
COMPILED_IN = ["BSD-3-Clause", "MPL-2.0", "BSL-1.0"]  # ropelab/Random123/pybind11, Eigen, Boost.Math
BUNDLED = {"libfftw3": "GPL-2.0-or-later", "libsleef": "BSL-1.0"}  # file-name prefix -> SPDX id
STATIC_LIBSTDCXX = "GPL-3.0-or-later WITH GCC-exception-3.1"
LIB_DIRS = ("ropelab.libs/", "ropelab/.dylibs/")


def _needed(elf: bytes) -> list[str]:
    from elftools.elf.dynamic import DynamicSection  # pyelftools: auditwheel's dependency
    from elftools.elf.elffile import ELFFile

    needed = []
    for section in ELFFile(io.BytesIO(elf)).iter_sections():
        if isinstance(section, DynamicSection):
            needed += [tag.needed for tag in section.iter_tags() if tag.entry.d_tag == "DT_NEEDED"]
    return needed


def licence_terms(names: list[str], read) -> list[str]:
    """The licences of a wheel with the files ``names`` (``read(name)`` gives a file's bytes)."""
    terms = list(COMPILED_IN)
    libs = [n for n in names if n.startswith(LIB_DIRS) and not n.endswith("/")]
    if not libs:
        sys.exit("wheel-licence: no bundled library in the wheel: is it a repaired wheel?")
    for name in libs:
        base = name.rsplit("/", 1)[1]
        spdx = [v for k, v in BUNDLED.items() if re.match(rf"{re.escape(k)}[-.]", base)]
        if len(spdx) != 1:
            sys.exit(f"wheel-licence: {name} is bundled, but its licence is not in BUNDLED of {__file__}")
        terms.append(spdx[0])
    for name in names:
        if re.fullmatch(r"ropelab/_core[^/]*\.so", name):
            data = read(name)
            if data[:4] == b"\x7fELF" and not any(n.startswith("libstdc++") for n in _needed(data)):
                terms.append(STATIC_LIBSTDCXX)
    return list(dict.fromkeys(terms))


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def relicense(path: str) -> str:
    """Rewrite the wheel at ``path`` in place; returns its new License-Expression."""
    with zipfile.ZipFile(path) as zin:
        names = zin.namelist()
        (meta_name,) = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        record_name = meta_name.rsplit("/", 1)[0] + "/RECORD"
        expression = " AND ".join(licence_terms(names, zin.read))
        try:  # (packaging >= 24.2 knows PEP 639's expressions; pip and auditwheel bring it)
            from packaging.licenses import canonicalize_license_expression
        except ImportError:
            pass
        else:
            assert canonicalize_license_expression(expression) == expression, expression
        meta = zin.read(meta_name).decode("utf-8")
        lines = re.findall(r"^License-Expression: .*$", meta, re.MULTILINE)
        if len(lines) != 1:
            sys.exit(f"wheel-licence: {meta_name} has {len(lines)} License-Expression lines")
        if lines[0] not in (f"License-Expression: {SOURCE}", f"License-Expression: {expression}"):
            sys.exit(f"wheel-licence: unexpected {lines[0]!r} in {meta_name}")
        new_meta = meta.replace(lines[0], f"License-Expression: {expression}").encode("utf-8")
        record = zin.read(record_name).decode("utf-8").splitlines()
        entry = f"{meta_name},{_record_hash(new_meta)},{len(new_meta)}"
        new_record = [entry if line.startswith(f"{meta_name},") else line for line in record]
        assert new_record.count(entry) == 1, "METADATA is not in RECORD"
        fd, tmp = tempfile.mkstemp(suffix=".whl", dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        try:
            with zipfile.ZipFile(tmp, "w") as zout:
                for info in zin.infolist():
                    if info.filename == meta_name:
                        data = new_meta
                    elif info.filename == record_name:
                        data = ("\n".join(new_record) + "\n").encode("utf-8")
                    else:
                        data = zin.read(info)
                    zout.writestr(info, data, compress_type=info.compress_type)
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    return expression


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for wheel in sys.argv[1:]:
        print(f"{os.path.basename(wheel)}: License-Expression: {relicense(wheel)}")
