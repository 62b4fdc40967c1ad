#!/usr/bin/env bash
# DEL-ToM at small scale on a CPU, the recipe of docs/pbm.md §5
# (measured in docs/experiments/2026-12-02-pbm-policy-traces.md): the trace-writing policy,
# the cpu-tiny PBM (Table 4 is printed by `train pbm`), and Fig. 3 with the learned PBM and the oracle
# on the same pools, per order, with cost per question, on the official Hi-ToM one-chapter subset,
# generated 1-3 chapter stories and the hand-written OOD stories. One thread per process: on a shared
# 2-core machine two OpenMP threads wait on each other (measured 3-7 s vs 17-23 s per policy step).
#
#   HITOM=../shared/data/hitom/Hi-ToM_data.json bash benchmarks/probes/deltom_tiny.sh
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set /s/^# \{0,1\}//p' "$0"
  exit 0
fi
export OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1
HITOM=${HITOM:-../shared/data/hitom/Hi-ToM_data.json}
POLICY=runs/policy-copy-1500/final
PBM=runs/pbm-both-1500/final
EVAL=(--policy "$POLICY" --verifier "$PBM" --with-example false --temperature 0.7
  --pool 16 --ns 1,2,4,8,16 --trials 20 --batch 64)

# 1. the policy: a scratch Llama learns to copy random sequences (500 steps), then SFT on gold traces
#    of generated stories (seed 1000), 1,500 steps
mindzero train trace-policy --preset cpu-tiny --max-steps 1500 --save-steps 250 --out runs/policy-copy-1500

# 2. the PBM, started from the policy's weights, on 600 fresh stories (seed 6000): gold traces, two
#    corruptions and two of the policy's own samples per question, all labelled by the DEL checker,
#    with belief targets on values and step numbers (the preset's default; scored by the value
#    readout); prints held-out step accuracy per order beside always-+ (Table 4)
mindzero stories pbm-data --source both --stories 600 --seed 6000 --corruptions 2 --policy "$POLICY" \
  --samples 2 --batch 64 --temperature 0.7 --max-new-tokens 600 --with-example false --no-hf true \
  --out runs/pbm-data-both
mindzero train pbm --preset cpu-tiny --model "$POLICY" --data runs/pbm-data-both/stepwise.jsonl \
  --max-steps 1500 --save-steps 250 --out runs/pbm-both-1500

# 3. Fig. 3: BoN (last/min/avg/prod), weighted BoN and majority vs N, PBM and oracle, per order
nice -n 5 mindzero stories scale-eval --data hitom --hitom "$HITOM" "${EVAL[@]}" \
  --max-new-tokens 600 --out runs/pbm-scale-hitom
nice -n 5 mindzero stories scale-eval --data generated --stories 3 --lengths 1,2,3 "${EVAL[@]}" \
  --max-new-tokens 1300 --out runs/pbm-scale-generated
nice -n 5 mindzero stories scale-eval --data ood --per-order 4 "${EVAL[@]}" \
  --max-new-tokens 600 --out runs/pbm-scale-ood
