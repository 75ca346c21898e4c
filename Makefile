# Everything a fresh machine needs comes from here: `make setup` is idempotent.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
UV     := $(VENV)/bin/uv
DEMO_STAMP := $(VENV)/.installed-demo
STAMP  := $(VENV)/.installed
NPM_STAMP := node_modules/.installed
CDK    := node_modules/.bin/cdk
# Deploying (see docs/operations.md): CONFIG, a configuration file (else ./rule-actions.json);
# APPROVE, cdk's --require-approval (never | broadening | any-change; needed without a terminal); CONFIRM=yes,
# destroy without asking (needed without a terminal); ARGS, more arguments for cdk.
CONFIG  ?=
APPROVE ?=
CONFIRM ?=
ARGS    ?=
DEPLOY  := $(PY) -m rule_actions_cli.deploy

# The CDK CLI and the jsii runtime (also under pytest): offline and quiet. No telemetry, no notices, caches
# in ignored project folders, no end-of-life banner for Node 20 (infra/rule_actions_cdk/app.py adds the running version)...
export CDK_DISABLE_CLI_TELEMETRY := 1
export CDK_HOME := $(CURDIR)/.cache/cdk
export JSII_RUNTIME_PACKAGE_CACHE_ROOT := $(CURDIR)/.cache/jsii
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
# ...and no "NodeVersionSupportWarning" from the AWS SDK for JavaScript inside the CDK CLI at every start.
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED := true
# The replay's synthesized stacks stay in the checkout (elsewhere the command keeps them in ~/.cache/rule-actions).
export RULE_ACTIONS_CACHE := $(CURDIR)/.cache/replay
# The demos' interpreter keeps its bytecode in .cache/pycache (beside no source), even where PYTHONDONTWRITEBYTECODE is
# set: without it each replay compiled moto, botocore and the rest again, about 3 of its seconds of CPU.
BYTECODE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.cache/pycache

# cfn-lint rules ignored on the synthesized template, each for a reason:
#   W3005  aws-cdk-lib gives every Lambda function a DependsOn on its role (and the role's policy) that also
#          has a GetAtt on the role: redundant, harmless, and not ours to remove.
CFN_LINT_IGNORE := W3005

.PHONY: setup demo demo-families demo-batch demo-restarts test pytest docs dist bench stress synth lint typecheck lint-template checkov checkov-templates chromium bootstrap deploy destroy deploy-local clean

setup: $(STAMP) $(NPM_STAMP)

# What a replay needs (the package, the CDK constructs, moto), installed with uv (pip took 25 s for what uv installs
# in 2 here), nothing else: `make demo` needs no npm and no test tools. `make setup` adds the tests' packages and the
# CDK CLI. Only PyPI is used.
$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	test -x $(UV) || $(PY) -m pip install --quiet --disable-pip-version-check 'uv>=0.9,<1'
	$(UV) pip install --quiet --python $(PY) -e '.[cdk,local]'
	touch $(DEMO_STAMP)

$(STAMP): $(DEMO_STAMP)
	$(UV) pip install --quiet --python $(PY) -e '.[cdk,local,dev,docs]'
	if [ -d .git ]; then git config core.hooksPath .githooks; fi
	touch $(STAMP)

# The CDK CLI, pinned in package-lock.json (aws-cdk 2.x: 3.x cannot read this aws-cdk-lib's assembly schema).
$(NPM_STAMP): package-lock.json package.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

# cdk.out/: the template(s), the function's asset, and cdk-nag's validation report (synth fails on a finding);
# CONFIG=FILE synthesizes that configuration instead of ./rule-actions.json (an organization's: both stacks).
synth: setup
	rm -rf cdk.out
	$(CDK) synth --no-notices --quiet $(if $(CONFIG),-c rule_actions_file='$(CONFIG)')

# cfn-lint on what synth wrote.
lint-template: synth
	$(VENV)/bin/cfn-lint --include-checks I $(if $(CFN_LINT_IGNORE),--ignore-checks $(CFN_LINT_IGNORE)) -- cdk.out/*.template.json

# checkov (a scanner independent of cdk-nag) on every synthesized template: cdk.out/ of synth, and the templates of
# the example configurations with everything on (monitor rules and webhooks, restarts, every job family,
# organization mode and its member stack), written by `rule-actions template`. Each check skipped is in
# .checkov.yaml with its reason. checkov pins packaging<24 and an old boto3, which the cdk extra and moto cannot
# share: it gets a virtual environment of its own in .cache/checkov, pinned here.
CHECKOV_VERSION := 3.3.30
CHECKOV_STAMP := .cache/checkov/.installed-$(CHECKOV_VERSION)
CHECKOV_CONFIGS := demo-webhook-config restart-config families-config organization-config
CHECKOV_DIR := .cache/checkov-templates

$(CHECKOV_STAMP): $(STAMP)
	rm -rf .cache/checkov
	$(PYTHON) -m venv .cache/checkov
	$(UV) pip install --quiet --python .cache/checkov/bin/python 'checkov==$(CHECKOV_VERSION)'
	touch $(CHECKOV_STAMP)

# The example configurations' templates, each written as `rule-actions template` writes it, the four in one process:
# each process that synthesizes starts the jsii runtime and CDK's template validation first (about 13 s of CPU), the
# syntheses themselves take about 3 s each (four processes: 74 s of CPU, one: 21 s).
checkov-templates: setup
	rm -rf $(CHECKOV_DIR) $(CHECKOV_DIR).log && mkdir -p $(CHECKOV_DIR)
	$(BYTECODE) $(PY) -c 'import sys; from rule_actions_cli.main import main; sys.exit(any([main(["template", "--config", \
		f"examples/{name}.json", "--out", f"$(CHECKOV_DIR)/{name}"]) for name in sys.argv[1:]]))' $(CHECKOV_CONFIGS) \
		>/dev/null 2>$(CHECKOV_DIR).log || { cat $(CHECKOV_DIR).log; exit 1; }

checkov: synth checkov-templates $(CHECKOV_STAMP)
	.cache/checkov/bin/checkov --config-file .checkov.yaml -f cdk.out/*.template.json $(CHECKOV_DIR)/*/*.template.json

# The main job: the sample events replayed through the stack's rule and the real handler on an embedded
# AWS (moto), with the demo configuration (a team to notify, a webhook whose secret points at a receiver on
# 127.0.0.1 that checks every signature, the monitor rules); then the sample timelines (events/timelines/),
# the evaluator run at each tick of a simulated clock. Prints what was done and what the receiver got.
# The demo's secrets file is made owner-only first (git keeps no such mode), or the replay warns that others may read
# it, as it warns of any --secrets file.
demo: $(DEMO_STAMP)
	chmod 600 examples/demo-secrets.json
	$(BYTECODE) $(VENV)/bin/rule-actions replay --config examples/demo-webhook-config.json --secrets examples/demo-secrets.json \
		--receiver events/ events/timelines/

# The other job families' samples (tuning jobs and their trials, processing jobs, pipelines and their steps' jobs,
# transform jobs) with examples/families-config.json: every family's outcomes notify the team, failures also post
# to the demo's signed webhook. Then their timelines (events/timelines/families/) with the monitor rules of those
# families: a hung processing job, idle and overrunning transform jobs, a tuning job whose first trials fail and a
# pipeline whose step hangs, each stopped once; the healthy ones left alone.
demo-families: $(DEMO_STAMP)
	chmod 600 examples/demo-secrets.json
	$(BYTECODE) $(VENV)/bin/rule-actions replay --config examples/families-config.json \
		--secrets examples/demo-secrets.json --receiver events/tuning events/processing events/pipelines events/transform
	$(BYTECODE) $(VENV)/bin/rule-actions replay --config examples/monitor-families-config.json events/timelines/families/

# AWS Batch service jobs (events/batch/, events/timelines/batch/) with examples/batch-config.json: the family on for
# the queue gpu-training; a wait for capacity, a preemption, a failure after three attempts told as Batch means them,
# and a hung attempt stopped through Batch (TerminateServiceJob).
demo-batch: $(DEMO_STAMP)
	$(BYTECODE) $(VENV)/bin/rule-actions replay --config examples/batch-config.json events/batch events/timelines/batch

# Restarts (events/timelines/restarts/) with examples/restart-config.json: a hung job stopped and restarted from its
# checkpoint, its copy resuming and completing; a copy that hangs again, stopped and not restarted (no progress); a
# copy that cannot get its instances, relaunched by job_outcomes.Failed; a healthy job never touched.
RESTARTS := events/timelines/restarts
demo-restarts: $(DEMO_STAMP)
	$(BYTECODE) $(VENV)/bin/rule-actions replay --config examples/restart-config.json $(RESTARTS)/restart-resumes.json \
		$(RESTARTS)/restart-no-progress.json $(RESTARTS)/restart-capacity.json $(RESTARTS)/healthy-restart.json

# Headless Chromium for the tests that look at the HTML page of a replay (tests/e2e/test_html_report.py: a screenshot,
# a DOM dump, both offline): Debian's chromium package, installed when /usr/bin/chromium is missing and we are root
# (CI's machines are); otherwise it says what to run, and those tests skip saying why. Idempotent.
CHROMIUM := /usr/bin/chromium
chromium:
	@if [ -x $(CHROMIUM) ]; then echo "chromium: $$($(CHROMIUM) --version 2>/dev/null)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
			>/dev/null && echo "chromium: $$($(CHROMIUM) --version 2>/dev/null)"; \
	else echo "chromium: $(CHROMIUM) is missing and cannot be installed here (not root, or no apt-get): run" \
		"'sudo apt-get install --no-install-recommends chromium'; the HTML page's browser tests skip"; fi

# ruff on the sources (rules in pyproject.toml); a finding fails `make test`.
lint: setup
	$(VENV)/bin/ruff check --quiet .

# mypy, strict, on every package (the function's, the stack's, the SDK, the CLI; settings in pyproject.toml); an error fails `make test`.
typecheck: setup
	$(VENV)/bin/mypy

# `make test`: the checks and pytest side by side (make -j), each one's output printed whole when it ends (-O), so that
# no core waits: mypy, the docs and checkov, one process each, run while pytest's workers run the tests. The
# interpreters keep their bytecode in .cache/pycache ($(BYTECODE)) even where PYTHONDONTWRITEBYTECODE is set: else
# every process (each worker, each command a test runs, each synthesis) compiled aws-cdk-lib, moto and botocore again.
TEST_STEPS := lint typecheck lint-template checkov docs dist pytest
test: setup chromium
	@rm -rf .cache/pycache$${TMPDIR:-/tmp}  # the bytecode of the last run's temporary folders (builds, tests' copies)
	@$(BYTECODE) $(MAKE) --no-print-directory -j -Otarget $(TEST_STEPS)

# pytest on every core (pytest-xdist), each test module on one worker (its synthesized stack or deployed account is
# built once), the slowest tiers first (tests/conftest.py); PYTEST_WORKERS=0 runs in one process. After synth: a test
# compares its stack with cdk.out/.
PYTEST_WORKERS ?= auto
pytest: setup synth
	$(BYTECODE) $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadscope --no-loadscope-reorder

# The documentation site (docs/, mkdocs.yml) built strictly into site/: a broken link or anchor fails. Not
# --quiet: it hides the warnings --strict counts, and the build passes. No banner about MkDocs 2.0 either.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# What a release publishes (docs/development.md, Cutting a release): the sdist, and the wheel built from it, into
# dist/ (python -m build, each step in an isolated environment that uv fills), then `twine check --strict` on both,
# as .github/workflows/release.yml does before it publishes them.
dist: setup
	rm -rf dist
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m build --quiet --installer uv --outdir dist .
	$(VENV)/bin/twine check --strict dist/*

# Benchmarks: print numbers (invocations, actions, API calls, cold start, replay throughput); not tests.
bench: setup
	$(PY) -m bench

# The heavy adversarial runs kept out of `make test`: 13,500 fuzz cases, 10,000 concurrent events.
stress: setup
	RULE_ACTIONS_STRESS=1 $(PY) -m pytest -q -m stress

# For users with an AWS account: each states the account and region first, and stops with one line when
# something is missing (a region, credentials, APPROVE or CONFIRM without a terminal, the bootstrap).
bootstrap: setup
	$(DEPLOY) bootstrap --config '$(CONFIG)' -- $(ARGS)

deploy: setup
	$(DEPLOY) deploy --config '$(CONFIG)' --approve '$(APPROVE)' -- $(ARGS)

destroy: setup
	$(DEPLOY) destroy --config '$(CONFIG)' --confirm '$(CONFIRM)' -- $(ARGS)

# The targets above, as printed in docs/operations.md, against moto server on 127.0.0.1: bootstrap, deploy, read the
# outputs back, destroy (no account needed; what moto skips is listed there).
deploy-local: setup
	$(PY) -m rule_actions_cli.deploy_local $(if $(CONFIG),--config '$(CONFIG)')

clean:
	rm -rf $(VENV) cdk.out .pytest_cache node_modules .cache site dist build
