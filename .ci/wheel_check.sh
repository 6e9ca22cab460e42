#!/usr/bin/env bash
# The wheel stands alone: built from the tree, installed in a fresh venv outside the checkout and
# run from a folder outside it. First the core alone (the samples' evaluation with bm25 must find
# its 36 queries; a knowledge base must say which extra it needs), then with the minilm and kb
# extras (one rse-kb build and query). Usage: .ci/wheel_check.sh [PYTHON], PYTHON being an
# interpreter with setuptools (the tests' venv; default python3). Packages come from pip's own
# configuration, as for the main install.
set -euo pipefail
checkout="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
export RSE_CACHE_DIR="$work/cache"
unset RSE_CORPUS_DIR RSE_FINANCEBENCH_DIR PYTHONPATH
started=$SECONDS

step() { echo "wheel check [$((SECONDS - started)) s]: $*"; }
die() { echo "wheel check FAILED: $*" >&2; exit 1; }

step "building the wheel from a copy of the tree"
mkdir "$work/src" "$work/dist" "$work/run"
(cd "$checkout" && tar cf - --exclude=__pycache__ pyproject.toml setup.py README.md rse_core sample_docs eval_sets) \
  | tar xf - -C "$work/src"
(cd "$work/src" && "$python" -m pip wheel -qq --no-deps --no-build-isolation --wheel-dir "$work/dist" .)
wheel="$(ls "$work"/dist/rse_explorer-*.whl)"

step "installing $(basename "$wheel") (the core alone) in a fresh venv"
"$python" -m venv "$work/venv"
bin="$work/venv/bin"
"$bin/pip" install -qq "$wheel" -c "$checkout/requirements.txt"

cd "$work/run"  # outside the checkout: nothing can be read from it by a relative path
step "rse-evaluate samples --scorer bm25"
"$bin/rse-evaluate" samples --scorer bm25 | tee "$work/evaluate.txt"
awk '$1 == "samples" && $2 == 36 && $3 == 3 { found = 1 } END { exit !found }' "$work/evaluate.txt" \
  || die "rse-evaluate samples did not report 36 queries over 3 documents"

samples="$("$bin/python" -c 'from rse_core.data import SAMPLES, bundled_folder; print(bundled_folder(SAMPLES))')"
case "$samples" in "$work/venv/"*) ;; *) die "the samples resolve to $samples, not inside the installed package" ;; esac

step "rse-kb without the kb and minilm extras names the extra to install"
if "$bin/rse-kb" build "$work/kb" "$samples/tech_report.pdf" 2>"$work/kb.err"; then
  die "rse-kb build succeeded without its extras"
fi
cat "$work/kb.err"
[ "$(wc -l <"$work/kb.err")" -eq 1 ] && grep -q "pip install 'rse-explorer\[" "$work/kb.err" \
  || die "rse-kb's missing-extra error is not one line with its install hint"

step "adding the minilm and kb extras"
"$bin/pip" install -qq "$wheel[minilm,kb]" -c "$checkout/requirements.txt"

step "rse-kb build and query"
"$bin/rse-kb" build "$work/kb" "$samples/tech_report.pdf" --quiet
"$bin/rse-kb" query "$work/kb" -q "How does the cooling system work?" --json >"$work/query.json"
"$bin/python" - "$work/query.json" <<'EOF'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:
    segments = json.load(file)["segments"]
assert segments and "tech_report" in json.dumps(segments), f"no segment of tech_report.pdf: {segments}"
EOF
step "passed"
