# Sourced by fuzz/run_campaign.sh, fuzz/plateau.sh and ci/fuzz_smoke.sh: reads one key of fuzz/TARGET.options (the
# OSS-Fuzz / ClusterFuzzLite options file, "[libfuzzer]" then "key = value" lines), so the limits a campaign, the CI
# smoke run and ClusterFuzzLite use are one piece of data.
# fuzz_option TARGET KEY DEFAULT: prints the value, or DEFAULT when the file or the key is absent.
fuzz_option() {
  local file="fuzz/$1.options" value=""
  [ -f "$file" ] && value=$(sed -n "s/^$2[[:space:]]*=[[:space:]]*\([^[:space:]]*\).*/\1/p" "$file" | head -n 1)
  echo "${value:-$3}"
}
