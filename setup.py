"""One build step pyproject.toml cannot say: the wheel ships the contract.

The ``.proto`` files live in ``proto/arena/v1/``, outside the package; they are copied
beside the code generated from them, into ``arena/v1/``, so that a pip-installed arena
gives bot authors the contract too (``protoc -I <site-packages> arena/v1/bot.proto``).
Everything else is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONTRACT = Path(__file__).resolve().parent / "proto" / "arena" / "v1"


class BuildWithContract(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the repository, proto/ included
            return
        target = Path(self.build_lib) / "arena" / "v1"
        self.mkpath(str(target))
        for proto in sorted(CONTRACT.glob("*.proto")):
            self.copy_file(str(proto), str(target / proto.name))


setup(cmdclass={"build_py": BuildWithContract})
