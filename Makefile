# Two commands: `make run` (default campaign, local profile) and `make test` (whole suite).
.PHONY: run test setup kernels dry-run clean

run: setup
	.venv/bin/snakemake --profile profiles/local
	@echo "ciphersweep: report in results/$$(.venv/bin/python -c 'import yaml;print(yaml.safe_load(open("config/config.yaml"))["campaign"])')/report.html (tables/ and plots/ beside it)"

test:
	scripts/test.sh

setup:
	scripts/setup.sh run

kernels: setup
	scripts/build-kernels.sh build/kernels

dry-run: setup
	.venv/bin/snakemake -n

clean:
	rm -rf build .snakemake
