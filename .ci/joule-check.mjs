// SAP's Joule Studio CLI on joule/, without a login and without a network:
// what `joule lint` runs (the CLI's own Linter and rules) and what
// `joule deploy -c` checks on this machine before it uploads anything (the
// CLI's own SourceValidator with the da.sapdas.yaml schema, the assistant
// name check, the schema-version check and the designtime artifact build).
// `joule lint` itself refuses to start without a stored login, so this drives
// the same classes the way its command does. A rule or step that needs SAP's
// servers is printed as SKIPPED by name, never counted as passed.
//
// Each variant is checked on a copy of joule/: as shipped, and with each
// joule/variants/<name>/ copied over joule/order_exception/ (what
// docs/deploy-btp.md has an admin do for the async variant).
//
// Usage: node .ci/joule-check.mjs <node_modules with the CLI> <CLI version> <joule dir> [deploy guide]
// With the deploy guide, the names and flags it gives for the CLI are held
// against the installed CLI too.
// Exit: 0 clean; 1 an error or a warning; 2 the CLI is not the expected one
// or a class this check drives is not where it was (a CLI upgrade that moved
// them fails here instead of passing).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import http from 'node:http';
import https from 'node:https';
import { pathToFileURL } from 'node:url';

const [modulesDir, expectedVersion, jouleDir] = process.argv.slice(2);
if (!modulesDir || !expectedVersion || !jouleDir) {
  console.error('usage: node .ci/joule-check.mjs <node_modules> <cli version> <joule dir>');
  process.exit(2);
}

function setupFailure(message) {
  console.error(`joule-check: ${message}`);
  process.exit(2);
}

// No network: every way out is refused and recorded, so a rule that tries
// to reach SAP's servers is an error here, not a silent pass.
const networkAttempts = [];
function refuseNetwork(what) {
  return (...args) => {
    const target = typeof args[0] === 'string' ? args[0] : JSON.stringify(args[0] ?? '');
    networkAttempts.push(`${what} ${target}`);
    throw new Error(`joule-check: network is off (${what} ${target})`);
  };
}
net.connect = net.createConnection = refuseNetwork('net.connect');
net.Socket.prototype.connect = refuseNetwork('socket.connect');
http.request = http.get = refuseNetwork('http.request');
https.request = https.get = refuseNetwork('https.request');
globalThis.fetch = refuseNetwork('fetch');

// --- the CLI's own classes, from where version 2.0.2 keeps them ----------

const cliDir = path.resolve(modulesDir, '@sap/joule-studio-cli');
const coreDir = [
  path.join(cliDir, 'node_modules/@sap/joule-studio-cli-core'),
  path.resolve(modulesDir, '@sap/joule-studio-cli-core'),
].find(dir => fs.existsSync(path.join(dir, 'package.json')));

function packageJson(dir, what) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch (error) {
    return setupFailure(`${what} is not installed in ${dir} (${error.message})`);
  }
}
const cliPackage = packageJson(cliDir, '@sap/joule-studio-cli');
if (cliPackage.version !== expectedVersion) {
  setupFailure(`@sap/joule-studio-cli is ${cliPackage.version}, this check drives ${expectedVersion}`);
}
if (!coreDir) {
  setupFailure('@sap/joule-studio-cli-core (the CLI\'s dependency) is not installed');
}
const corePackage = packageJson(coreDir, '@sap/joule-studio-cli-core');

/** One export of one module of the CLI, or exit 2 naming what moved. */
async function cliExport(dir, file, name) {
  const url = pathToFileURL(path.join(dir, file)).href;
  let module;
  try {
    module = await import(url);
  } catch (error) {
    return setupFailure(`cannot load ${file} of the CLI (${error.message}); did a CLI upgrade move it?`);
  }
  const value = module[name];
  if (value === undefined) {
    setupFailure(`${file} of the CLI no longer exports ${name}; did a CLI upgrade move it?`);
  }
  return value;
}

const cli = 'dist/esm';
const Linter = await cliExport(cliDir, `${cli}/lint/linter/linter.js`, 'Linter');
const Rule = await cliExport(cliDir, `${cli}/lint/linter/rules/rule.js`, 'Rule');
const getFilesFromPattern = await cliExport(cliDir, `${cli}/lint/lintHelpers.js`, 'getFilesFromPattern');
const normalizeCwd = await cliExport(cliDir, `${cli}/lint/lintHelpers.js`, 'normalizeCwd');
const DaSchemaValidator = await cliExport(cliDir, `${cli}/base/validator/daSchemaValidator.js`, 'default');
const SourceValidator = await cliExport(cliDir, `${cli}/base/validator/sourceValidator.js`, 'default');
const Deploy = await cliExport(cliDir, `${cli}/deploy/deploy.js`, 'default');
const Compile = await cliExport(cliDir, `${cli}/compile/compile.js`, 'default');
const coreEntry = corePackage.exports?.['.']?.import?.default;
if (!coreEntry) {
  setupFailure('@sap/joule-studio-cli-core has no ESM entry any more');
}
const output = await cliExport(coreDir, coreEntry, 'output');
const CliErrorCode = await cliExport(coreDir, coreEntry, 'CliErrorCode');

for (const [name, check] of [
  ['Linter.prototype.lintFiles', Linter.prototype.lintFiles],
  ['Linter.prototype.loadFormatter', Linter.prototype.loadFormatter],
  ['Rule.prototype.isExecutable', Rule.prototype.isExecutable],
  ['DaSchemaValidator.prototype.validateSourceSchema', DaSchemaValidator.prototype.validateSourceSchema],
  ['SourceValidator.prototype.sourceToConfig', SourceValidator.prototype.sourceToConfig],
  ['Deploy.prototype.validateAssistantName', Deploy.prototype.validateAssistantName],
  ['Compile.prototype.buildZip', Compile.prototype.buildZip],
  ['CliErrorCode.DEPLOY_INVALID_SOURCE', CliErrorCode.DEPLOY_INVALID_SOURCE],
]) {
  if (check === undefined) {
    setupFailure(`the CLI no longer has ${name}`);
  }
}

// --- joule lint ---------------------------------------------------------

/**
 * A rule of `joule lint` that needs a login: the CLI gates those on
 * isExecutable, which calls SAP's API to see whether the user is logged in
 * (the similarity check of scenario descriptions against every scenario
 * already deployed in the tenant is one). The rest read the files only.
 */
function needsSapServers(rule) {
  return rule.isExecutable !== Rule.prototype.isExecutable;
}

/** `joule lint` run in `dir`, as its command runs it, without the login. */
async function lint(dir) {
  const files = await getFilesFromPattern('', dir);
  if (files.length === 0) {
    setupFailure(`joule lint finds no files in ${dir}`);
  }
  const cwd = await normalizeCwd('', dir);
  const all = new Linter({ authConfig: undefined, cwd }).rules;
  const ran = all.filter(rule => !needsSapServers(rule)).map(rule => rule.ruleId);
  const skipped = all.filter(needsSapServers).map(rule => rule.ruleId);
  if (ran.length === 0) {
    setupFailure('the CLI\'s Linter has no rule that runs without a login');
  }
  class OfflineLinter extends Linter {
    get rules() {
      return super.rules.filter(rule => !needsSapServers(rule));
    }
  }
  const linter = new OfflineLinter({ authConfig: undefined, cwd });
  const results = await linter.lintFiles(files);
  const formatter = await linter.loadFormatter('pretty', 'info');
  await formatter.output(results);
  const issues = results.flatMap(result =>
    result.messages.map(message => ({ file: path.relative(dir, result.filePath), ...message }))
  );
  return {
    files: files.length,
    ran,
    skipped,
    errors: issues.filter(i => i.severity === 'error' || i.severity === 'fatal'),
    warnings: issues.filter(i => i.severity === 'warning'),
    infos: issues.filter(i => i.severity === 'info'),
  };
}

// --- joule deploy -c: what it checks before it uploads ------------------

/**
 * What `joule deploy -c` (docs/deploy-btp.md, run in joule/) does on this
 * machine before its first request: the SourceValidator reads
 * da.sapdas.yaml and checks it against the CLI's da.sapdas.yaml schema (the
 * CLI prints the findings in red and goes on; here they are errors), checks
 * that each local capability folder has its capability.sapdas.yaml; the
 * assistant name is checked; each capability's schema version is checked
 * and its designtime artifact built. Then the CLI uploads the artifact to
 * SAP's compiler: not done here.
 */
async function deployChecks(dir) {
  const errors = [];
  const warnings = [];
  const steps = [];
  const printedError = output.error;
  const printedWarning = output.warn;
  output.error = message => errors.push(String(message));
  output.warn = message => warnings.push(String(message));
  try {
    const validator = new SourceValidator(dir, CliErrorCode.DEPLOY_INVALID_SOURCE, 'deploy', {
      shouldCompile: true,
    });
    steps.push('SourceValidator.sourceToConfig (da.sapdas.yaml schema, capability folders)');
    let config;
    try {
      config = await validator.sourceToConfig();
    } catch (error) {
      errors.push(`SourceValidator: ${error.message}`);
    }
    if (config) {
      steps.push('Deploy.validateAssistantName');
      try {
        Deploy.prototype.validateAssistantName(config.name ?? '');
      } catch (error) {
        errors.push(`assistant name: ${error.message}`);
      }
      steps.push('Compile.buildZip per local capability (schema version check, designtime artifact)');
      const compile = new Compile(dir, '.', {}, true, {});
      for (const capability of config.capabilities.filter(SourceValidator.isCodeCapability)) {
        try {
          const { zip } = await compile.buildZip(path.resolve(dir, capability.folder));
          if (!zip?.length) {
            errors.push(`designtime artifact of ${capability.folder} is empty`);
          }
        } catch (error) {
          errors.push(`designtime artifact of ${capability.folder}: ${error.message}`);
        }
      }
    }
  } finally {
    output.error = printedError;
    output.warn = printedWarning;
  }
  return { steps, errors, warnings };
}

// --- the variants -------------------------------------------------------

function copyOf(source) {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'joule-check-'));
  fs.cpSync(source, copy, { recursive: true });
  return copy;
}

/** joule/ as shipped, then with each variant's files copied over the capability. */
function variants(source) {
  const found = [{ name: 'joule/', apply: () => {} }];
  const variantsDir = path.join(source, 'variants');
  const capability = 'order_exception';
  if (fs.existsSync(variantsDir)) {
    for (const name of fs.readdirSync(variantsDir).sort()) {
      found.push({
        name: `joule/ with variants/${name}`,
        apply: copy => fs.cpSync(path.join(copy, 'variants', name), path.join(copy, capability), {
          recursive: true,
        }),
      });
    }
  }
  return found;
}

const source = path.resolve(jouleDir);
console.log(`@sap/joule-studio-cli ${cliPackage.version} (core ${corePackage.version}), on copies of ${source}`);
let failed = false;
for (const variant of variants(source)) {
  const copy = copyOf(source);
  try {
    variant.apply(copy);
    console.log(`\n=== ${variant.name}`);
    console.log('--- joule lint (the CLI\'s Linter, pretty formatter):');
    const linted = await lint(copy);
    console.log(`--- joule lint: ${linted.files} files`);
    console.log(`rules run: ${linted.ran.join(', ')}`);
    for (const rule of linted.skipped) {
      console.log(`SKIPPED: ${rule} (needs a login to SAP's servers)`);
    }
    for (const info of linted.infos) {
      console.log(`info: ${info.file}:${info.line} ${info.ruleId}: ${info.message}`);
    }
    const deployed = await deployChecks(copy);
    console.log('--- joule deploy -c, local checks before the upload:');
    for (const step of deployed.steps) {
      console.log(`ran: ${step}`);
    }
    console.log('SKIPPED: the compile on SAP\'s servers (deploy -c uploads the designtime artifact; scenarios, functions and their expressions are checked there)');
    console.log('SKIPPED: the deploy job on SAP\'s servers');
    for (const message of deployed.errors) {
      console.log(`error: ${message}`);
    }
    for (const message of deployed.warnings) {
      console.log(`warning: ${message}`);
    }
    for (const issue of [...linted.errors, ...linted.warnings]) {
      console.log(`${issue.severity}: ${issue.file}:${issue.line} ${issue.ruleId}: ${issue.message}`);
    }
    const errors = linted.errors.length + deployed.errors.length;
    const warnings = linted.warnings.length + deployed.warnings.length;
    console.log(`${variant.name}: ${errors} errors, ${warnings} warnings`);
    failed ||= errors > 0 || warnings > 0;
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}
// --- what the deploy guide says of the CLI ----------------------------

/**
 * The names and flags docs/deploy-btp.md gives for the CLI, read from the
 * installed CLI: the IAS dependency `joule login` asks IAS for (its
 * JWT-bearer exchange names it in `resource`), the Node.js versions the
 * CLI's package declares, and every `joule login --flag` the guide uses.
 */
function guideChecks(guidePath) {
  const errors = [];
  const guide = fs.readFileSync(guidePath, 'utf8');
  const authManager = fs.readFileSync(path.join(coreDir, 'dist/esm/auth/authManager.js'), 'utf8');
  const resources = [...new Set(
    [...authManager.matchAll(/urn:sap:identity:application:provider:name:([A-Za-z0-9_-]+)/g)].map(m => m[1])
  )];
  if (resources.length !== 1) {
    setupFailure(`authManager.js of the CLI names ${resources.length} IAS dependencies (${resources}), expected one`);
  }
  const [dependency] = resources;
  console.log(`the CLI's IAS dependency: ${dependency} (dist/esm/auth/authManager.js)`);
  const spellings = [...guide.matchAll(new RegExp(dependency, 'gi'))].map(m => m[0]);
  if (!spellings.includes(dependency)) {
    errors.push(`${guidePath} does not name the IAS dependency ${dependency}`);
  }
  for (const other of new Set(spellings.filter(s => s !== dependency))) {
    errors.push(`${guidePath} spells the IAS dependency ${other}; the CLI asks IAS for ${dependency}`);
  }
  const engines = cliPackage.engines?.node;
  if (!engines) {
    setupFailure('@sap/joule-studio-cli declares no Node.js engines');
  }
  console.log(`the CLI's Node.js engines: ${engines}`);
  if (!guide.includes(`"node": "${engines}"`)) {
    errors.push(`${guidePath} does not give the CLI's Node.js engines "${engines}"`);
  }
  const login = fs.readFileSync(path.join(cliDir, cli, 'auth/loginCommand.js'), 'utf8');
  const flags = new Set([...guide.matchAll(/joule login[^`\n]*/g)].flatMap(m => m[0].match(/--[a-z-]+/g) ?? []));
  for (const flag of flags) {
    if (!login.includes(`'${flag}`) && !login.includes(` ${flag}`)) {
      errors.push(`${guidePath} uses \`joule login ${flag}\`, which the CLI's login command does not have`);
    }
  }
  console.log(`joule login flags the guide uses: ${[...flags].join(', ') || 'none'}`);
  return errors;
}

const guidePath = process.argv[5];
if (guidePath) {
  console.log(`\n=== ${guidePath} against the CLI`);
  const errors = guideChecks(guidePath);
  for (const message of errors) {
    console.log(`error: ${message}`);
  }
  console.log(`${guidePath}: ${errors.length} errors`);
  failed ||= errors.length > 0;
}

if (networkAttempts.length) {
  console.log(`error: the CLI tried the network: ${networkAttempts.join('; ')}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
