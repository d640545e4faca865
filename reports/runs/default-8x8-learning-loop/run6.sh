#!/bin/bash
# Six `make run` iterations on the default params, the way make run does them
# (with a frozen copy of the code on PYTHONPATH, since the working tree is being edited).
cd "$(dirname "$0")"
export PYTHONPATH=/work/snap
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=180
V=/work/main/.venv/bin
export PATH="$V:$PATH"
$V/zero init
test -f models/learner.pt.dvc || $V/dvc add --quiet models/learner.pt models/champion.pt models/state.json
for i in 1 2 3 4 5 6; do
  echo "=== iteration $i $(date +%T)"
  $V/dvc repro || exit 1
  python3 -c "import json; d=json.load(open('reports/promotion.json')); print('gen', d['generation'], 'promoted', d['promoted'], 'rating', d['rating'], 'ladder', d['ladder_before'], '->', d['ladder_after'])"
done
echo "=== done $(date +%T)"
