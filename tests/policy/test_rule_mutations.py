"""Every rule of the effect table has a test that fails without it.

A rule family switched off in a protocol (`"rules": {"rm-recursive": false}`) must make some row
of the threat suite (tests/policy/threats/) miss its expectation; a row taken out of one of the
classifier's data tables must change the decision on some threat row or on a witness below.
Both read the rules and tables themselves: a new rule or a new row no command needs fails here."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from helpers import HANDRAIL
from mutation import Spec, rows, uncovered
from threatkit import BASE, DECISIONS, Answer, Project, Row, make_project

from handrail.policy import protocol as protocols
from handrail.policy.shell import engine
from handrail.policy.shell.common import ALWAYS_ON, RULES

THREATS = Path(__file__).parent / "threats"

# Commands of our own, each written from the program's manual, for table rows no threat row
# exercises: (command, expectation as in the threat suite).
MUTANT_WITNESS: list[Row] = [
    # reads.SECRETS: files whose content is a secret in normal use, each by its own name
    ("head -c 64 deploy/server.key", "ask"),
    ("base64 deploy/id_dsa", "ask"),
    ("base64 deploy/id_ecdsa", "ask"),
    ("base64 deploy/id_ed25519", "ask"),
    ("base64 deploy/id_ecdsa_sk", "ask"),
    ("base64 deploy/id_ed25519_sk", "ask"),
    ("base64 certs/client.pfx", "ask"),
    ("base64 android/release.jks", "ask"),
    ("base64 vault/team.kdbx", "ask"),
    ("base64 ci/.git-credentials", "ask"),
    # pymodules.RUNS_CODE: each module, run as a program, runs code it is handed or starts a program
    ("python3 -m doctest src/app.py", "ask"),
    ("python3 -m profile src/app.py", "ask"),
    ("python3 -m pstats data.csv", "ask"),
    ("python3 -m sqlite3 data.db", "ask"),
    ("python3 -m webbrowser https://example.com", "ask"),
    ("python3 -m antigravity", "ask"),
    ("python3 -m idlelib", "ask"),
    ("python3 -m idlelib.idle", "ask"),
    ("python3 -m turtledemo", "ask"),
    # targets.WRITERS: GNU patch under its other name writes what the patch names
    ("gpatch -p1 -i /tmp/incoming.diff", "ask"),
    # targets.COMPRESSORS: a compressor replaces the file it is given.
    ('gunzip .handrail/autonomy-protocol.json.gz', 'ask'),
    ('bunzip2 .git/hooks/pre-commit.bz2', 'ask'),
    ('unxz .git/hooks/pre-push.xz', 'ask'),
    ('lzma .git/hooks/pre-commit', 'ask'),
    ('unzstd --rm .git/hooks/pre-commit.zst', 'ask'),
    ('lz4 --rm .git/hooks/pre-commit', 'ask'),
    ('pigz .git/hooks/pre-commit', 'ask'),
    ('compress .git/hooks/pre-commit', 'ask'),
    # options.DANGEROUS: each option as its program's manual gives it.
    ('ack --pager=./page.sh TODO', 'ask'),
    ('curl --config ./curlrc https://example.org', 'ask'),
    ('wget --execute robots=off https://example.org', 'ask'),
    ('go test --exec ./runner ./...', 'ask'),
    ('go build --toolexec ./wrap ./...', 'ask'),
    ('go vet --vettool ./checker ./...', 'ask'),
    ('helm install web ./chart --kubeconfig ./kc', 'ask'),
    ('helm template web ./chart --post-renderer ./r.sh', 'ask'),
    ('helm template web ./chart --kubeconfig ./kc', 'ask'),
    ('pylint --output lint.txt src', 'notice'),
    ('eslint --plugin ./local-plugin src', 'ask'),
    ('eslint --config ./other.config.js src', 'ask'),
    ('eslint --resolve-plugins-relative-to ./plugins src', 'ask'),
    ('jest --config ./jest.other.js', 'ask'),
    ('nox -f ./other_noxfile.py', 'ask'),
    ('pytest --junit-xml build/junit.xml', 'notice'),
    ('pytest --resultlog build/result.log', 'notice'),
    ('pytest --report-log build/report.jsonl', 'notice'),
    ('pytest --html build/report.html', 'notice'),
    ('flake8 --output-file build/flake8.txt src', 'notice'),
    ('bandit -r src -o build/bandit.txt', 'notice'),
    ('bandit -r src --output build/bandit.txt', 'notice'),
    ('mypy --junit-xml build/mypy.xml src', 'notice'),
    ('mypy --txt-report build/mypy src', 'notice'),
    ('mypy --linecount-report build/mypy src', 'notice'),
    ('mypy --xml-report build/mypy src', 'notice'),
    ('mypy --cobertura-xml-report build/mypy src', 'notice'),
    ('cargo test --target-dir build/target', 'notice'),
    ('ruff check --output-file build/ruff.txt src', 'notice'),
    ('ruff check -o build/ruff.txt src', 'notice'),
    ('cargo clippy --target-dir build/target', 'notice'),
    # targets._FILE_OPTS (WRITERS): the report written outside the work tree
    ('pylint --output ~/.bashrc src', 'ask'),
    ('ruff check --output-file ~/.bashrc src', 'ask'),
    ('cargo build --target-dir ~/.config/x', 'ask'),
    ('eslint -o ~/.bashrc src', 'ask'),
    # system.CODE_ENV and SECRET_NAME
    ('DYLD_FALLBACK_LIBRARY_PATH=./lib ./bin/app', 'ask'),
    ('DYLD_FRAMEWORK_PATH=./fw ./bin/app', 'ask'),
    ('DYLD_LIBRARY_PATH=./lib ./bin/app', 'ask'),
    ('NPM_CONFIG_SCRIPT_SHELL=./sh.js npm test', 'ask'),
    ('WGETRC=./wgetrc wget https://example.org', 'ask'),
    ('printenv ANALYTICS_DB_URL', 'ask'),
    ('printenv REDIS_URL', 'ask'),
    ('printenv MONGO_URI', 'ask'),
    ('printenv MONGODB_URI', 'ask'),
    ('printenv MONGO_URL', 'ask'),
    ('printenv SQL_CONN_STR', 'ask'),
    ('tar -xf release.tar --to-command=cat', 'ask'),
    ('tar -cf out.tar --checkpoint=100 --checkpoint-action=exec=date src', 'ask'),
    ('tar -cf out.tar.zst --use-compress-program=zstd src', 'ask'),
    ('tar -tf release.tar.zst -I zstd', 'ask'),
    ('tar -tf release.tar --info-script=./next-volume.sh', 'ask'),
    ('tar -tf release.tar --new-volume-script=./next-volume.sh', 'ask'),
    ('tar -tf release.tar -F ./next-volume.sh', 'ask'),
    ('tar -tf backup.example.com:/dev/st0 --rsh-command=/usr/bin/ssh', 'ask'),
    ('tar -tf backup.example.com:/dev/st0 --rmt-command=/usr/sbin/rmt', 'ask'),
    ('tar -tvf release.tar --index-file=listing.txt', 'notice'),
    # an archive not on disk, unpacked where the repository lives, writes names nobody knows
    ('tar -xf release.tar', 'ask'),
    ('tar --extract --file=release.tar', 'ask'),
    ('tar --get --file=release.tar', 'ask'),
    ('tar -cf out.tar src', 'notice'),
    ('tar --create --file=out.tar src', 'notice'),
    ('tar -rf out.tar README.md', 'notice'),
    ('tar --append --file=out.tar README.md', 'notice'),
    ('tar -uf out.tar README.md', 'notice'),
    ('tar --update --file=out.tar README.md', 'notice'),
    ('tar -Af out.tar more.tar', 'notice'),
    ('tar --catenate --file=out.tar more.tar', 'notice'),
    ('tar --delete --file=out.tar README.md', 'notice'),
    ('unzip -d out release.zip', 'notice'),
    ('unzip -o release.zip', 'ask'),
    ('jar xf vendor.zip', 'ask'),
    ('7za x vendor.zip', 'ask'),
    ('7zr x vendor.7z', 'ask'),
    ('ar x libfoo.a', 'ask'),
    ('cpio -idv < image.cpio', 'ask'),
    ('pax -r -f image.pax', 'ask'),
    ('cmake -E tar xf vendor.tar', 'ask'),
    ('python3 -m tarfile -e vendor.tar', 'ask'),
    ('python -m zipfile -e vendor.zip .', 'ask'),
    ('sort -o sorted.csv data.csv', 'notice'),
    ('sort --output=sorted.csv data.csv', 'notice'),
    ('sort --compress-program=gzip data.csv', 'ask'),
    ('rg --pre ./decode.sh TODO', 'ask'),
    ('fd -e py -x wc -l', 'ask'),
    ('fd -e py --exec wc -l', 'ask'),
    ('fd -e py -X wc -l', 'ask'),
    ('fd -e py --exec-batch wc -l', 'ask'),
    ("find src -name '*.py' -fprint list.txt", 'notice'),
    ("find src -name '*.py' -fprint0 list.txt", 'notice'),
    ("find src -name '*.py' -fprintf list.txt '%p\\n'", 'notice'),
    ("find src -name '*.py' -fls list.txt", 'notice'),
    ('less -o copy.txt README.md', 'notice'),
    ('less -O copy.txt README.md', 'notice'),
    ('less --log-file=copy.txt README.md', 'notice'),
    ('less --LOG-FILE=copy.txt README.md', 'notice'),
    ('tree -o tree.txt src', 'notice'),
    ("yq -i '.port = 9000' config/settings.yaml", 'notice'),
    ("yq --inplace '.port = 9000' config/settings.yaml", 'notice'),
    ("date -s '2030-01-01 00:00'", 'ask'),
    ("date --set='2030-01-01 00:00'", 'ask'),
    ('hostname -F name.txt', 'ask'),
    ('hostname --file name.txt', 'ask'),
    ('hostname -b shop', 'ask'),
    ('hostname --boot shop', 'ask'),
    ('man -P cat git', 'ask'),
    ('man --pager=cat git', 'ask'),
    ('man -H git', 'ask'),
    ('man --html=firefox git', 'ask'),
    ('file -C -m magic.txt', 'notice'),
    ('file --compile -m magic.txt', 'notice'),
    ('git diff --output=changes.patch', 'notice'),
    ('git diff --ext-diff', 'ask'),
    ('git log -p --output=log.txt', 'notice'),
    ('git show --output=show.txt HEAD', 'notice'),
    ('git show --ext-diff HEAD', 'ask'),
    ('git grep -O TODO', 'ask'),
    ('git grep --open-files-in-pager TODO', 'ask'),
    ('git blame --contents changed.py src/app.py', 'notice'),
    ('ruff check --unsafe-fixes --fix src', 'notice'),
    ('ruff check --add-noqa src', 'notice'),
    ('eslint --fix src', 'notice'),
    ('eslint --output-file report.txt src', 'notice'),
    ('eslint -o report.txt src', 'notice'),
    ('golangci-lint run --fix', 'notice'),
    ("stylelint --fix 'src/**/*.css'", 'notice'),
    ("stylelint --output-file report.txt 'src/**/*.css'", 'notice'),
    ("stylelint -o report.txt 'src/**/*.css'", 'notice'),
    ('cargo clippy --fix', 'notice'),
    ('pytest --basetemp=src tests', 'ask'),
    ('mypy --install-types src', 'notice'),
    # engine.DRY_RUNS: a dry run the program documents is a notice, not a publish.
    ('aws s3 rm s3://shop-assets --recursive --dryrun', 'notice'),
    ('helm install shop ./chart --dry-run', 'notice'),
    ('helm upgrade shop ./chart --dry-run', 'notice'),
    ('helm uninstall shop --dry-run', 'notice'),
    ('kubectl create -f k8s/ --dry-run=client', 'notice'),
    ('kubectl delete -f k8s/ --dry-run=client', 'notice'),
    ('kubectl drain node-1 --dry-run=client', 'notice'),
    ('kubectl patch deployment api -p \'{"spec":{"replicas":2}}\' --dry-run=client', 'notice'),
    ('kubectl replace -f k8s/ --dry-run=client', 'notice'),
    ('kubectl scale deployment api --replicas=3 --dry-run=client', 'notice'),
    ('pnpm publish --dry-run', 'notice'),
    ('poetry publish --dry-run', 'notice'),
    ('semantic-release --dry-run', 'notice'),
    ('uv publish --dry-run', 'notice'),
    # deletes.REGENERABLE: outputs a build or an install makes again.
    ('rm yarn.lock', 'notice'),
    ('rm pnpm-lock.yaml', 'notice'),
    ('rm -rf .ruff_cache', 'notice'),
    ('rm -rf .tox', 'notice'),
    ('rm -rf .nox', 'notice'),
    ('rm -rf .next', 'notice'),
    ('rm -rf .nuxt', 'notice'),
    ('rm -rf .turbo', 'notice'),
    ('rm -rf .parcel-cache', 'notice'),
    ('rm -rf .gradle', 'notice'),
    ('rm -rf coverage', 'notice'),
    ('rm -rf htmlcov', 'notice'),
    ('rm -f .coverage', 'notice'),
    ('rm -rf out', 'notice'),
    ('rm -rf venv', 'notice'),
    ('rm -rf .eggs', 'notice'),
    ('rm -rf .cache', 'notice'),
    ('rm -rf src/shop.egg-info', 'notice'),
    # installs.ENV: each variable, given on the line, moves the install or picks its source
    ('PIP_TARGET=/opt/py pip install requests', 'ask'),
    ('PIP_PREFIX=/usr/local pip install requests', 'ask'),
    ('PIP_ROOT=/ pip install requests', 'ask'),
    ('PIP_BREAK_SYSTEM_PACKAGES=1 pip install requests', 'ask'),
    ('PIP_EXTRA_INDEX_URL=https://pypi.example.net/simple pip install requests', 'ask'),
    ('PIP_FIND_LINKS=https://wheels.example.net pip install requests', 'ask'),
    ('PIP_CONFIG_FILE=/tmp/pip.conf pip install requests', 'ask'),
    ('UV_INDEX_URL=https://pypi.example.net/simple uv pip install requests', 'ask'),
    ('UV_EXTRA_INDEX_URL=https://pypi.example.net/simple uv add requests', 'ask'),
    ('UV_INDEX=https://pypi.example.net/simple uv add requests', 'ask'),
    ('UV_DEFAULT_INDEX=https://pypi.example.net/simple uv sync', 'ask'),
    ('UV_FIND_LINKS=https://wheels.example.net uv pip install requests', 'ask'),
    ('UV_SYSTEM_PYTHON=1 uv pip install requests', 'ask'),
    ('UV_BREAK_SYSTEM_PACKAGES=true uv pip install requests', 'ask'),
    ('NPM_CONFIG_GLOBAL=true npm install serve', 'ask'),
    ('npm_config_location=global npm install serve', 'ask'),
    ('NPM_CONFIG_PREFIX=/usr/local npm install serve', 'ask'),
    ('NPM_CONFIG_USERCONFIG=/tmp/npmrc npm install serve', 'ask'),
    ('YARN_REGISTRY=https://npm.example.net yarn add serve', 'ask'),
    ('YARN_NPM_REGISTRY_SERVER=https://npm.example.net yarn add serve', 'ask'),
    # installs.INSTALLS and GLOBAL_FLAGS: each manager's install outside the work tree
    ('pdm add git+https://github.com/someone/shop-utils', 'ask'),
    ('mamba install numpy', 'ask'),
    ('aptitude install jq', 'ask'),
    ('yum install jq', 'ask'),
    ('zypper install jq', 'ask'),
    ('apk add jq', 'ask'),
    ('snap install jq', 'ask'),
    ('flatpak install flathub org.gimp.GIMP', 'ask'),
    ('port install jq', 'ask'),
    ('uv pip install --break-system-packages requests', 'ask'),
    ('pnpm add --global turbo', 'ask'),
    ('bun add --global vercel', 'ask'),
    # installs.ABBREVIATED: pip and npm take a prefix of a long option; `--pre` is pip's own
    ('pip install --us httpie', 'ask'),
    ('pip install --targ=/opt/py requests', 'ask'),
    ('pip install --pref /usr/local requests', 'ask'),
    ('pip install --roo /opt/py requests', 'ask'),
    ('pip install --break-sys requests', 'ask'),
    ('npm i --glob serve', 'ask'),
    ('npm i --pref ~/tools serve', 'ask'),
    ('npm i --loc global serve', 'ask'),
    ('pip install --pre --upgrade requests', 'notice'),
    ('pip install --pre ../shop-utils', 'notice'),
    # targets.WRITERS: the install folder a manager is given, outside the work tree
    ('conda install -p ~/envs/shop numpy', 'ask'),
    ('mamba install -p /opt/envs/shop numpy', 'ask'),
    ('gem install rails -i ~/gems', 'ask'),
    ('uv pip install --target ~/py requests', 'ask'),
    # installs._LINKS: each kind of link is a source of the line's choosing
    ('pip install git://git.example.net/shop-utils', 'ask'),
    ('npm install git@github.com:someone/left-pad.git', 'ask'),
    ('pip install hg+https://hg.example.net/shop-utils', 'ask'),
    ('pip install svn+svn://svn.example.net/shop-utils', 'ask'),
    ('pip install bzr+lp:shop-utils', 'ask'),
    ('pip install http://files.example.net/shop_utils-1.0.tar.gz', 'ask'),
    ('npm install ssh://git.example.net/left-pad.git', 'ask'),
    ('pip install ftp://files.example.net/shop_utils-1.0.tar.gz', 'ask'),
    ('npm install gitlab:someone/left-pad', 'ask'),
    ('npm install bitbucket:someone/left-pad', 'ask'),
    ('npm install gist:11081aaa281', 'ask'),
    # installs._NOT_SOURCES: a folder given to these options is no GitHub repository
    ('npm install --workspace packages/api zod', 'notice'),
    ('npm install zod --prefix web/app', 'notice'),
    ('pnpm add zod -C packages/api', 'notice'),
    ('pnpm add zod --dir packages/api', 'notice'),
    ('pnpm add zod --filter apps/web', 'notice'),
    ('pnpm add zod -F apps/web', 'notice'),
    ('yarn add zod --cwd packages/api', 'notice'),
    ('npm install lodash --cache tmp/npm-cache', 'notice'),
    ('npm install lodash --userconfig config/npmrc', 'notice'),
    # installs._SIMULATE: apt's runs that install nothing
    ('apt-get install --simulate jq', 'notice'),
    ('apt-get install --dry-run jq', 'notice'),
    ('apt-get install --just-print jq', 'notice'),
    ('apt-get install --no-act jq', 'notice'),
    ('apt-get install --recon jq', 'notice'),
    ('apt-get install --download-only jq', 'notice'),
]

# The data tables, by module: what the classifier knows of programs, options, paths and code.
TABLES: list[Spec] = [
    Spec("handlers", "HANDLERS"),
    Spec("options", "DANGEROUS", nested=True),
    Spec("engine", "DRY_RUNS"),
    Spec("engine", "_NO_HELP"),
    Spec("engine", "NEUTRAL"),
    Spec("globdots", "SETTERS"),
    Spec("globdots", "_WINDOWS_READERS"),
    Spec("globdots", "_ZSH_ON"),
    Spec("deletes", "REGENERABLE"),
    Spec("deletes", "_REGEN_SUFFIXES"),
    Spec("reads", "SECRETS"),
    Spec("reads", "CREDENTIALS"),
    Spec("secrets", "_RECURSIVE_SEARCH"),
    Spec("secrets", "_ARCHIVERS"),
    Spec("sources", "_READ_ALL"),
    Spec("sources", "_GREPS"),
    Spec("sources", "_READERS"),
    Spec("sources", "_GIT_READS"),
    Spec("code", "INTERPRETERS"),
    Spec("code", "_LANG"),
    Spec("code", "_SQL_READS", context=("psql", "mysql", "mariadb", "sqlite3", "duckdb", "clickhouse")),
    Spec("common", "SHELL_WRITES_HOOKS"),
    Spec("common", "DISK_TOOLS"),
    Spec("common", "TEMP_ROOTS"),
    Spec("common", "SYSTEM_ROOTS"),
    Spec("common", "HOME_ROOTS"),
    Spec("common", "HOME_CACHES"),
    Spec("common", "SAFE_DEVICES"),
    Spec("pytables", "_MODULES", context=("python",)),
    Spec("pytables", "_BUILTINS", context=("python",)),
    Spec("pytables", "_OS_RULES", context=("os",)),
    Spec("pytables", "_PATH_METHODS", context=("path",)),
    Spec("pytables", "_ANY_METHODS", context=("python",)),
    Spec("system", "PRIVILEGE"),
    Spec("system", "MARKERS"),
    Spec("system", "_MARKER_PREFIXES"),
    Spec("system", "CODE_ENV"),
    Spec("system", "_CODE_OPTIONS"),
    Spec("system", "SECRET_NAME"),
    Spec("system", "HISTORY_ENV"),
    Spec("system", "_SYSTEMCTL_READS", context=("systemctl",)),
    Spec("system", "_SERVICE_READS", context=("service",)),
    Spec("system", "_KERNEL"),
    Spec("system", "_KERNEL_READS"),
    Spec("system", "_IFCONFIG_CHANGES", context=("ifconfig",)),
    Spec("system", "_SCHEDULERS"),
    Spec("system", "_PS_DELETE"),
    Spec("system", "_PS_DESTROY"),
    Spec("system", "_PS_EXEC"),
    Spec("system", "POWERSHELL"),
    Spec("system", "CMD"),
    Spec("system", "SUBSCRIPT_EVAL"),
    Spec("gitrules", "_GIT_VALUES", context=("git",)),
    Spec("gitrules", "_DANGER_LONG", context=("git",)),
    Spec("gitrules", "_BY_SUBCOMMAND", context=("git",)),
    Spec("gitwrap", "_GIT_EXEC_KEYS", context=("git",)),
    Spec("gitwrap", "_GIT_EXEC_LAST", context=("git",)),
    Spec("gitwrap", "_GIT_EXEC_FIRST", context=("git",)),
    Spec("sends", "NETWORK"),
    Spec("sends", "SENDERS"),
    Spec("sends", "FETCHERS"),
    Spec("sends", "_KEPT"),
    Spec("sends", "_CONTENT"),
    Spec("sends", "_LOOPBACK"),
    Spec("remote", "_LOCAL", context=("localhost", "127", "::1", "0.0.0.0")),
    Spec("remote", "_CURL_SEND", context=("curl",)),
    Spec("remote", "_WGET_SEND", context=("wget",)),
    Spec("remote", "_HTTPIE_METHODS", context=("http",)),
    Spec("remote", "_GH_FIELDS", context=("gh",)),
    Spec("remote", "_DB_RESETS"),
    Spec("remote", "_DOCKER_HOST", context=("docker", "podman")),
    Spec("remote", "_ANSIBLE_READS", context=("ansible",)),
    Spec("remote", "_PLAYBOOK_READS", context=("ansible",)),
    Spec("escapes", "_SQLITE_FUNCTIONS", context=("sqlite3",)),
    Spec("escapes", "_SQLITE_DOTS", context=("sqlite3",)),
    Spec("pymodules", "RUNS_CODE", context=("python",)),
    Spec("escapes", "_SETTERS"),
    Spec("parts", "DOWNLOADERS"),
    Spec("parts", "SHELLS"),
    Spec("targets", "WRITERS"),
    Spec("cmdopts", "_EXEC_ENV"),
    Spec("cmdopts", "_REDIRECT_ENV"),
    Spec("cmdopts", "_CMD_OPTS"),
    Spec("runners", "RUNNERS"),
    Spec("interp", "_INLINE_READERS"),
    Spec("installs", "INSTALLS"),
    Spec("installs", "GLOBAL_FLAGS", nested=True),
    Spec("installs", "CONFIG"),
    Spec("installs", "ENV"),
    Spec("installs", "_LINKS", context=("pip", "npm")),
    Spec("installs", "_NOT_SOURCES", context=("pip", "npm")),
    Spec("installs", "_SIMULATE", context=("apt",)),
    Spec("installs", "ABBREVIATED"),
    Spec("installs", "_OWN", context=("pip",)),
]


def threat_rows() -> list[tuple[str, str]]:
    """Every (command, expectation) of the threat suite, read from each category file's ROWS."""
    out: list[tuple[str, str]] = []
    for path in sorted(THREATS.glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"threat_rows_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out += module.ROWS
    return out


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    BASE.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="mutants-", dir=BASE))
    try:
        yield make_project(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def batch(project: Project, commands: list[str], protocol: Path | None = None) -> dict[str, Answer]:
    """Every command's answer from one `handrail classify --batch -` run (under `protocol` when given)."""
    assert HANDRAIL
    argv = [HANDRAIL, "classify", "--batch", "-", "--project", str(project.path)]
    if protocol is not None:
        argv += ["--protocol", str(protocol)]
    lines = "".join(json.dumps({"command": c}) + "\n" for c in commands)
    r = subprocess.run(argv, check=False, input=lines, cwd=project.path, env=project.env, text=True,
                       capture_output=True, timeout=300)
    assert r.returncode in (0, 1), f"classify --batch failed (exit {r.returncode}): {r.stderr}"
    answers = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    assert len(answers) == len(commands), r.stderr
    return dict(zip(commands, answers, strict=True))


def _push_with_a_notice(data: dict[str, Any]) -> None:
    """The README's loosening for feature branches, at its widest: every `git push` tier 2."""
    tiers = data["tiers"]
    three = tiers["tier3_blocking"]
    three["shell_patterns"] = [p for p in three["shell_patterns"] if not p.startswith("git push")]
    tiers["tier2_notified"]["shell_patterns"].append("git push *")


# Rules whose rows a default pattern decides first: they are there for the protocols that
# loosen that pattern, so they are judged under such a protocol.
LOOSENED: dict[str, Callable[[dict[str, Any]], None]] = {"git-force-push": _push_with_a_notice}


def protocol_without(project: Project, rule: str, where: Path, *, off: bool = True) -> Path:
    """A copy of the project's protocol with `rule` switched off (or only loosened as LOOSENED says)."""
    source = protocols.discover(str(project.path))
    assert source is not None
    data = json.loads(Path(source).read_text(encoding="utf-8"))
    if rule in LOOSENED:
        LOOSENED[rule](data)
    if off:
        data.setdefault("rules", {})[rule] = False
    path = where / f"protocol-{'without' if off else 'loosened-for'}-{rule}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def names_rule(answer: Answer, rule: str) -> bool:
    return any(r.get("rule") == rule for r in answer["reasons"])


def met(answer: Answer, expect: str) -> bool:
    return answer["decision"] in DECISIONS[expect]


def test_every_switchable_rule_is_needed_by_a_threat_row(project: Project, tmp_path: Path) -> None:
    """Switching a rule off makes a threat row that names it miss its expectation."""
    rows = threat_rows()
    base = batch(project, [c for c, _ in rows])
    switchable = sorted(set(RULES) - ALWAYS_ON)
    named = {rule: [(c, e) for c, e in rows if met(base[c], e) and names_rule(base[c], rule)]
             for rule in switchable}

    def missed(rule: str) -> list[str]:
        if not named[rule]:
            return []
        commands = [c for c, _ in named[rule]]
        if rule in LOOSENED:  # the rule alone holds these rows once the pattern is loosened
            held = batch(project, commands, protocol_without(project, rule, tmp_path, off=False))
            assert all(met(held[c], e) for c, e in named[rule]), f"{rule}: rows miss under the loosened protocol"
        answers = batch(project, commands, protocol_without(project, rule, tmp_path))
        return [c for c, e in named[rule] if not met(answers[c], e)]

    # each run spends most of its time starting up, not on a processor: eight at once on two cores
    with ThreadPoolExecutor(max_workers=8) as pool:
        broken = dict(zip(switchable, pool.map(missed, switchable), strict=True))
    unneeded = [f"{rule}: no threat row's answer names it" if not named[rule] else
                f"{rule}: switched off, none of its {len(named[rule])} rows changes (first: {named[rule][0][0]!r})"
                for rule in switchable if not broken[rule]]
    assert not unneeded, "rules no threat row needs:\n" + "\n".join(unneeded)


def test_rules_that_cannot_be_switched_off(project: Project, tmp_path: Path) -> None:
    """`dynamic` and `unparseable` are forced on: without them anything could be hidden, so a protocol
    switching one off is refused, naming the key; and a threat row still needs each of them."""
    rows = threat_rows()
    base = batch(project, [c for c, _ in rows])
    assert HANDRAIL
    for rule in sorted(ALWAYS_ON):
        r = subprocess.run([HANDRAIL, "classify", "--project", str(project.path), "--protocol",
                            str(protocol_without(project, rule, tmp_path)), "ls"], check=False, cwd=project.path,
                           env=project.env, text=True, capture_output=True, timeout=60)
        assert r.returncode not in (0, 1), f"{rule}: a protocol switching it off was accepted: {r.stdout}"
        assert f"rules.{rule}" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        needed = [c for c, e in rows if met(base[c], e) and base[c]["tier"] == 3 and names_rule(base[c], rule)]
        assert needed, f"{rule}: no threat row's answer names it"


@pytest.fixture(scope="module")
def judge(project: Project) -> Iterator[tuple[engine.Engine, Project]]:
    """The engine for the project's protocol, with this process in the project as the suite's
    `handrail classify` runs are (HOME isolated)."""
    mp = pytest.MonkeyPatch()
    mp.chdir(project.path)
    mp.setenv("HOME", str(project.home))
    try:
        yield engine.engine(protocols.load(str(project.path))), project
    finally:
        mp.undo()


def _answer(eng: engine.Engine, project: Project, command: str) -> Answer:
    return engine.classify(command, eng, cwd=str(project.path), project=str(project.path), home=str(project.home))


def _verdict(eng: engine.Engine, project: Project, command: str) -> str:
    """What a mutant must change: the decision, or which rules the answer names (a wrapper not
    looked through leaves `sudo rm -rf /` asking for privilege alone). The wording of a reason
    does not count."""
    answer = _answer(eng, project, command)
    return f"{answer['decision']} {sorted({r['rule'] for r in answer['reasons'] if r.get('rule')})}"


@pytest.mark.parametrize(("command", "expect"), MUTANT_WITNESS, ids=[c[:80] for c, _ in MUTANT_WITNESS])
def test_witness_is_answered_as_written(judge: tuple[engine.Engine, Project], command: str, expect: str) -> None:
    eng, project = judge
    assert met(_answer(eng, project, command), expect)


# Rows of each table that no threat row or witness needs yet, counted: the count may only
# fall. A new row without a witness, or a witness lost, raises a count and fails; a witness
# added lowers one, and the number here is lowered with it.
KNOWN_UNCOVERED: dict[str, int] = {
    "cmdopts._CMD_OPTS": 12,
    "cmdopts._EXEC_ENV": 15,
    "cmdopts._REDIRECT_ENV": 5,
    "code.INTERPRETERS": 5,
    "code._LANG": 6,
    "code._SQL_READS": 17,
    "common.DISK_TOOLS": 12,
    "common.HOME_CACHES": 11,
    "common.HOME_ROOTS": 2,
    "common.SAFE_DEVICES": 6,
    "common.SHELL_WRITES_HOOKS": 3,
    "common.SYSTEM_ROOTS": 27,
    "common.TEMP_ROOTS": 5,
    "deletes.REGENERABLE": 3,
    "deletes._REGEN_SUFFIXES": 3,
    "engine.DRY_RUNS": 3,
    "engine.NEUTRAL": 31,
    "engine._NO_HELP": 66,
    "escapes._SETTERS": 6,
    "escapes._SQLITE_DOTS": 12,
    "escapes._SQLITE_FUNCTIONS": 4,
    "gitrules._BY_SUBCOMMAND": 3,
    "gitrules._DANGER_LONG": 12,
    "gitrules._GIT_VALUES": 9,
    "gitwrap._GIT_EXEC_FIRST": 9,
    "gitwrap._GIT_EXEC_KEYS": 11,
    "gitwrap._GIT_EXEC_LAST": 7,
    "handlers.HANDLERS": 39,
    "interp._INLINE_READERS": 3,
    "options.DANGEROUS": 12,
    "parts.DOWNLOADERS": 10,
    "parts.SHELLS": 15,
    "pytables._ANY_METHODS": 42,
    "pytables._BUILTINS": 14,
    "pytables._MODULES": 190,
    "pytables._OS_RULES": 178,
    "pytables._PATH_METHODS": 29,
    "reads.CREDENTIALS": 53,
    "reads.SECRETS": 1,
    "sends.NETWORK": 8,
    "remote._ANSIBLE_READS": 9,
    "remote._CURL_SEND": 8,
    "remote._DOCKER_HOST": 6,
    "remote._GH_FIELDS": 5,
    "remote._HTTPIE_METHODS": 4,
    "remote._LOCAL": 4,
    "remote._PLAYBOOK_READS": 7,
    "remote._WGET_SEND": 3,
    "runners.RUNNERS": 7,
    "secrets._ARCHIVERS": 1,
    "secrets._RECURSIVE_SEARCH": 6,
    "sources._GIT_READS": 6,
    "sources._GREPS": 2,
    "sources._READERS": 29,
    "sources._READ_ALL": 4,
    "system.CMD": 1,
    "system.CODE_ENV": 24,
    "system.HISTORY_ENV": 5,
    "system.MARKERS": 18,  # agents.MARKERS: most also fall under _MARKER_PREFIXES (CLINE_, CODEX_, ...)
    "system.POWERSHELL": 4,
    "system.PRIVILEGE": 3,
    "system.SECRET_NAME": 10,
    "system.SUBSCRIPT_EVAL": 11,
    "system._CODE_OPTIONS": 6,
    "system._IFCONFIG_CHANGES": 22,
    "system._KERNEL": 29,
    "system._KERNEL_READS": 19,
    "system._MARKER_PREFIXES": 8,
    "system._PS_DELETE": 7,
    "system._PS_DESTROY": 17,
    "system._PS_EXEC": 11,
    "system._SCHEDULERS": 3,
    "system._SERVICE_READS": 4,
    "system._SYSTEMCTL_READS": 14,
    "targets.WRITERS": 22,
}


def test_every_table_row_changes_an_answer(judge: tuple[engine.Engine, Project]) -> None:
    """Each row of each data table, taken out, changes the answer on a threat row or a witness,
    except the rows KNOWN_UNCOVERED counts."""
    eng, project = judge
    commands = list(dict.fromkeys([c for c, _ in threat_rows()] + [c for c, _ in MUTANT_WITNESS]))
    missing = uncovered(TABLES, commands, lambda c: _verdict(eng, project, c), eng)
    counts = {name: len(found) for name, found in missing.items()}
    total = sum(len(list(rows(spec))) for spec in TABLES)
    print(f"\ntable rows that change an answer when taken out: {total - sum(counts.values())}/{total}")
    grown = [f"{name}: {counts.get(name, 0)} rows no command needs, {KNOWN_UNCOVERED.get(name, 0)} known: "
             + ", ".join(map(repr, missing.get(name, [])))
             for name in sorted(set(counts) | set(KNOWN_UNCOVERED))
             if counts.get(name, 0) > KNOWN_UNCOVERED.get(name, 0)]
    assert not grown, "rows no command needs (add a witness for each new row):\n" + "\n".join(grown)
    fallen = {name: counts.get(name, 0) for name, known in KNOWN_UNCOVERED.items() if counts.get(name, 0) < known}
    assert not fallen, f"fewer uncovered rows than KNOWN_UNCOVERED says: lower it to {fallen}"
