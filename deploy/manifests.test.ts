/**
 * Offline checks of the deployment files: docker-compose.yml, deploy/compose.embedded.yml,
 * deploy/Dockerfile and the kustomize tree in deploy/kubernetes.
 *
 * No kubectl, kustomize or network is needed. The kustomizations are rendered here the way
 * kustomize does for the only features they may use (`resources`, `namespace`, `images`, and
 * `patches` given by `path`, one strategic-merge patch per file); every other kustomization field
 * or patch directive makes the render throw, so the overlay cannot drift into features this
 * render does not reproduce. Every object (file by file, then rendered) is validated against the JSON
 * schema of its kind bundled in the `kubernetes-models` package; that package is ESM-only, so the
 * validation runs in a child Node process.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments, parseDocument } from 'yaml';

/** A JSON value, as YAML documents parse to. */
type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object. */
interface JsonObject {
  [key: string]: Json;
}
/** One Kubernetes object and the file it came from. */
interface Resource {
  source: string;
  body: JsonObject;
}

const root = resolve(__dirname, '..');
const kubeDir = join(root, 'deploy', 'kubernetes');
const baseDir = join(kubeDir, 'base');
const productionDir = join(kubeDir, 'overlays', 'production');

/** Every Stamp process of the distributed mode and the port it listens on. */
const PROCESSES: Readonly<Record<string, number>> = {
  gateway: 3000,
  accounts: 3001,
  contacts: 3002,
  domains: 3003,
  sending: 3004,
  activity: 3005,
  relay: 3006,
  segments: 3007,
  campaigns: 3008,
  workflows: 3009,
};
const PROCESS_NAMES = Object.keys(PROCESSES);
/**
 * Ports a process serves besides HTTP, reached from outside through a Service of their own
 * (`<process>-inbound`): the sending process's inbound SMTP listener of bounce and complaint
 * reports.
 */
const INBOUND_PORTS: Readonly<Record<string, { name: string; port: number }>> = {
  sending: { name: 'smtp', port: 2525 },
};
/** Processes scaled horizontally (an HPA in production); the relay is not one of them. */
const STATELESS = [
  'gateway',
  'accounts',
  'contacts',
  'domains',
  'sending',
  'activity',
  'segments',
  'campaigns',
  'workflows',
];
const NAMESPACE = 'stamp';
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PriorityClass']);
/** Environment every process needs; a string value is the one it must have. */
const SHARED_ENV: Readonly<Record<string, string | RegExp>> = {
  STAMP_HOST: '0.0.0.0',
  STAMP_SECRET: /./,
  STAMP_INTERNAL_TOKEN: /./,
  STAMP_EVENT_STORE: 'kurrentdb',
  STAMP_KURRENTDB_URL: /^kurrentdb:\/\/kurrentdb:2113\b/,
  STAMP_BUS: 'kafka',
  STAMP_KAFKA_BROKERS: /^kafka:9092$/,
  STAMP_KAFKA_TOPIC_PREFIX: /./,
  STAMP_KAFKA_PARTITIONS: /^[1-9]\d*$/,
  STAMP_VIEWS: 'mongodb',
  STAMP_MONGODB_URL: /^mongodb:\/\/mongodb:27017\/\w+/,
  STAMP_LOG_LEVEL: /./,
};
/** Environment only some processes need. */
const PROCESS_ENV: Readonly<Record<string, readonly string[]>> = {
  gateway: [
    'STAMP_ACCOUNTS_URL',
    'STAMP_CONTACTS_URL',
    'STAMP_DOMAINS_URL',
    'STAMP_SENDING_URL',
    'STAMP_ACTIVITY_URL',
    'STAMP_SEGMENTS_URL',
    'STAMP_CAMPAIGNS_URL',
    'STAMP_WORKFLOWS_URL',
    'STAMP_PUBLIC_URL',
    'STAMP_RATE_LIMIT_PER_MINUTE',
  ],
  sending: ['STAMP_CONTACTS_URL', 'STAMP_DOMAINS_URL', 'STAMP_SMTP_URL', 'STAMP_PUBLIC_URL'],
  segments: ['STAMP_CONTACTS_URL'],
  campaigns: ['STAMP_SEGMENTS_URL', 'STAMP_SENDING_URL'],
  workflows: ['STAMP_SENDING_URL', 'STAMP_CONTACTS_URL'],
};

// ---------------------------------------------------------------------------------------------
// JSON helpers

function toJson(value: unknown, where: string): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item, i) => toJson(item, `${where}[${i}]`));
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) out[key] = toJson(item, `${where}.${key}`);
    return out;
  }
  throw new Error(`${where}: not a JSON value`);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObject(value: Json | undefined, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`${where}: expected a mapping`);
  return value;
}

function asArray(value: Json | undefined, where: string): Json[] {
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list`);
  return value;
}

/** Reads a dotted path (`spec.template.spec`) of nested mappings; undefined when absent. */
function at(value: Json | undefined, path: string): Json | undefined {
  let current = value;
  for (const key of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function text(value: Json | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A value for messages: a scalar as itself, anything else as JSON. */
function show(value: Json | undefined): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  return JSON.stringify(value) ?? 'undefined';
}

function kindOf(r: Resource): string {
  return text(r.body.kind) ?? '';
}

function nameOf(r: Resource): string {
  return text(at(r.body, 'metadata.name')) ?? '';
}

function idOf(r: Resource): string {
  return `${kindOf(r)}/${nameOf(r)}`;
}

function clone<T extends Json>(value: T): T {
  return structuredClone(value);
}

// ---------------------------------------------------------------------------------------------
// YAML and kustomize

/** Parses every document of a YAML file (anchors and `<<` merge keys resolved). */
function loadYaml(file: string): Json[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'), { merge: true });
  if (!Array.isArray(docs)) return [];
  const out: Json[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(toJson(value, relative(root, file)));
  }
  return out;
}

function loadResources(file: string): Resource[] {
  const source = relative(root, file);
  return loadYaml(file).map((doc) => {
    const body = asObject(doc, source);
    if (typeof body.apiVersion !== 'string' || typeof body.kind !== 'string') {
      throw new Error(`${source}: a document without apiVersion and kind`);
    }
    if (typeof at(body, 'metadata.name') !== 'string') throw new Error(`${source}: no name`);
    return { source, body };
  });
}

interface ImageRule {
  name: string;
  newName?: string;
  newTag?: string;
}
interface Kustomization {
  namespace?: string;
  resources: string[];
  images: ImageRule[];
  patches: string[];
}

function onlyKeys(value: JsonObject, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new Error(`${where}: "${key}" is not rendered by this test`);
  }
}

function loadKustomization(dir: string): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  const where = relative(root, file);
  const docs = loadYaml(file);
  const k = asObject(docs[0], where);
  if (docs.length !== 1) throw new Error(`${where}: expected one document`);
  if (k.apiVersion !== 'kustomize.config.k8s.io/v1beta1' || k.kind !== 'Kustomization') {
    throw new Error(`${where}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  onlyKeys(k, ['apiVersion', 'kind', 'namespace', 'resources', 'images', 'patches'], where);
  const strings = (key: string): string[] =>
    asArray(k[key] ?? [], `${where}.${key}`).map((item) => {
      if (typeof item !== 'string') throw new Error(`${where}.${key}: expected strings`);
      return item;
    });
  const images = asArray(k.images ?? [], `${where}.images`).map((item) => {
    const rule = asObject(item, `${where}.images`);
    onlyKeys(rule, ['name', 'newName', 'newTag'], `${where}.images`);
    const name = text(rule.name);
    if (name === undefined) throw new Error(`${where}.images: a rule without name`);
    return { name, newName: text(rule.newName), newTag: text(rule.newTag) };
  });
  const patches = asArray(k.patches ?? [], `${where}.patches`).map((item) => {
    const patch = asObject(item, `${where}.patches`);
    onlyKeys(patch, ['path'], `${where}.patches`);
    const path = text(patch.path);
    if (path === undefined) throw new Error(`${where}.patches: only "path" patches are rendered`);
    return path;
  });
  return { namespace: text(k.namespace), resources: strings('resources'), images, patches };
}

/**
 * Merge keys of the lists a strategic-merge patch merges item by item (from the Kubernetes API's
 * `x-kubernetes-patch-merge-key`); every other list is replaced whole, as kustomize does.
 */
function mergeKeyOf(field: string, items: Json[]): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
      return 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'ports':
      return items.some((item) => isObject(item) && 'containerPort' in item)
        ? 'containerPort'
        : 'port';
    default:
      return undefined;
  }
}

/**
 * Applies a strategic-merge patch (the subset kustomize applies to core kinds): mappings merge key
 * by key, a null deletes, known lists merge by their merge key, other lists and scalars replace.
 * Throws on `$patch`, `$retainKeys` and other directives, which this render does not reproduce.
 */
function strategicMerge(base: Json | undefined, patch: Json, field: string, where: string): Json {
  if (isObject(patch)) {
    const out: JsonObject = isObject(base) ? clone(base) : {};
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith('$')) throw new Error(`${where}: directive ${key} is not rendered`);
      if (value === null) Reflect.deleteProperty(out, key);
      else out[key] = strategicMerge(out[key], value, key, `${where}.${key}`);
    }
    return out;
  }
  if (Array.isArray(patch)) {
    const key = mergeKeyOf(field, patch);
    if (key === undefined || !Array.isArray(base)) return clone(patch);
    const out = clone(base);
    for (const item of patch) {
      const itemObject = asObject(item, where);
      const id = itemObject[key];
      if (id === undefined) throw new Error(`${where}: a list item without its merge key ${key}`);
      const index = out.findIndex((existing) => isObject(existing) && existing[key] === id);
      if (index === -1) out.push(strategicMerge(undefined, itemObject, field, where));
      else out[index] = strategicMerge(out[index], itemObject, field, where);
    }
    return out;
  }
  return patch;
}

/** Rewrites an image reference (`name[:tag][@digest]`) the way kustomize's `images` does. */
function applyImageRules(image: string, rules: readonly ImageRule[]): string {
  const atSign = image.indexOf('@');
  const withoutDigest = atSign === -1 ? image : image.slice(0, atSign);
  const digest = atSign === -1 ? '' : image.slice(atSign);
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > withoutDigest.lastIndexOf('/');
  const name = hasTag ? withoutDigest.slice(0, colon) : withoutDigest;
  const tag = hasTag ? withoutDigest.slice(colon) : '';
  const rule = rules.find((r) => r.name === name);
  if (rule === undefined) return image;
  const newTag = rule.newTag === undefined ? tag : `:${rule.newTag}`;
  return `${rule.newName ?? name}${newTag}${rule.newTag === undefined ? digest : ''}`;
}

/** Renders a kustomization directory like `kustomize build` for the supported features. */
function render(dir: string): Resource[] {
  const k = loadKustomization(dir);
  let resources: Resource[] = [];
  for (const entry of k.resources) {
    const path = resolve(dir, entry);
    resources.push(...(statSync(path).isDirectory() ? render(path) : loadResources(path)));
  }
  const seen = new Set<string>();
  for (const r of resources) {
    const id = `${idOf(r)}@${text(at(r.body, 'metadata.namespace')) ?? ''}`;
    if (seen.has(id)) throw new Error(`${relative(root, dir)}: ${id} is defined twice`);
    seen.add(id);
  }
  for (const entry of k.patches) {
    const patches = loadResources(resolve(dir, entry));
    const patch = patches[0];
    if (patch === undefined || patches.length !== 1) {
      throw new Error(`${entry}: expected exactly one patch document`);
    }
    const namespace = text(at(patch.body, 'metadata.namespace'));
    const targets = resources.filter(
      (r) =>
        r.body.apiVersion === patch.body.apiVersion &&
        idOf(r) === idOf(patch) &&
        (namespace === undefined || text(at(r.body, 'metadata.namespace')) === namespace),
    );
    const target = targets[0];
    if (target === undefined || targets.length !== 1) {
      throw new Error(`${patch.source}: no unique target for ${idOf(patch)}`);
    }
    const body = asObject(strategicMerge(target.body, patch.body, '', patch.source), entry);
    resources = resources.map((r) => (r === target ? { source: r.source, body } : r));
  }
  const namespace = k.namespace;
  if (namespace !== undefined) {
    for (const r of resources) {
      if (!CLUSTER_SCOPED.has(kindOf(r))) asObject(r.body.metadata, r.source).namespace = namespace;
    }
  }
  for (const r of resources) {
    const podSpec = at(r.body, 'spec.template.spec');
    for (const list of ['containers', 'initContainers']) {
      const containers = at(podSpec, list);
      if (!Array.isArray(containers)) continue;
      for (const container of containers) {
        const c = asObject(container, r.source);
        if (typeof c.image === 'string') c.image = applyImageRules(c.image, k.images);
      }
    }
  }
  return resources;
}

/** Every YAML file under a directory. */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Schema validation through kubernetes-models (ESM) in a child process

const VALIDATOR = `
import { readFileSync } from 'node:fs';
const items = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const item of items) {
  let Model;
  try {
    Model = (await import('kubernetes-models/' + item.apiVersion + '/' + item.kind))[item.kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') {
    results.push('no Kubernetes schema for ' + item.apiVersion + ' ' + item.kind);
    continue;
  }
  try {
    if (item.body !== null) new Model(item.body).validate();
    results.push('');
  } catch (error) {
    results.push(error instanceof Error ? error.message : String(error));
  }
}
process.stdout.write(JSON.stringify(results));
`;

/** One object to validate; a null body checks only that its kind has a schema. */
interface ValidationItem {
  label: string;
  apiVersion: string;
  kind: string;
  body: JsonObject | null;
}

/** Validates objects against the schemas of kubernetes-models; returns one message per failure. */
function validateAll(items: readonly ValidationItem[]): string[] {
  const child = spawnSync(process.execPath, ['--input-type=module', '--eval', VALIDATOR], {
    cwd: root,
    input: JSON.stringify(items),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`schema validator failed: ${child.stderr}`);
  const results = asArray(toJson(JSON.parse(child.stdout), 'validator'), 'validator');
  if (results.length !== items.length) throw new Error('schema validator: result count mismatch');
  return results.flatMap((result, i) =>
    typeof result === 'string' && result === ''
      ? []
      : [`${items[i]?.label ?? ''}: ${show(result)}`],
  );
}

function itemOf(r: Resource, label: string, schemaOnly = false): ValidationItem {
  return {
    label: `${label} ${r.source} ${idOf(r)}`,
    apiVersion: text(r.body.apiVersion) ?? '',
    kind: kindOf(r),
    body: schemaOnly ? null : r.body,
  };
}

// ---------------------------------------------------------------------------------------------
// Invariants of a rendered set of objects

/** Kubernetes quantity (`500m`, `1`, `256Mi`, `1G`) as a number of base units. */
function quantity(value: Json | undefined): number {
  const factors: Readonly<Record<string, number>> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
  };
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi)?$/.exec(typeof value === 'string' ? value : '');
  if (match === null) return Number.NaN;
  return Number(match[1]) * (factors[match[2] ?? ''] ?? Number.NaN);
}

/** The value of each environment variable of a container: literal, or `secret:<name>/<key>`. */
function effectiveEnv(container: JsonObject, resources: readonly Resource[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const from of asArray(container.envFrom ?? [], 'envFrom')) {
    const name = text(at(from, 'configMapRef.name'));
    const configMap = resources.find((r) => kindOf(r) === 'ConfigMap' && nameOf(r) === name);
    if (configMap === undefined) throw new Error(`envFrom: no ConfigMap ${name ?? '(none)'}`);
    for (const [key, value] of Object.entries(asObject(configMap.body.data, 'data'))) {
      env.set(key, show(value));
    }
  }
  for (const item of asArray(container.env ?? [], 'env')) {
    const name = text(at(item, 'name')) ?? '';
    const value = text(at(item, 'value'));
    const secret = at(item, 'valueFrom.secretKeyRef');
    if (value !== undefined) env.set(name, value);
    else if (isObject(secret)) {
      env.set(name, `secret:${text(secret.name) ?? ''}/${text(secret.key) ?? ''}`);
    } else throw new Error(`env ${name}: neither a value nor a secretKeyRef`);
  }
  return env;
}

/** Checks the environment a process gets (shared and per-process); returns the problems. */
function checkEnv(name: string, env: ReadonlyMap<string, string>, where: string): string[] {
  const problems: string[] = [];
  for (const [key, expected] of Object.entries(SHARED_ENV)) {
    const value = env.get(key);
    if (value === undefined) problems.push(`${where}: ${key} is not set`);
    else if (typeof expected === 'string' ? value !== expected : !expected.test(value)) {
      problems.push(`${where}: ${key}=${value} is unexpected`);
    }
  }
  for (const key of PROCESS_ENV[name] ?? []) {
    if (!env.has(key)) problems.push(`${where}: ${key} is not set`);
  }
  if (env.get('STAMP_PORT') !== String(PROCESSES[name])) {
    problems.push(`${where}: STAMP_PORT is not ${PROCESSES[name]}`);
  }
  if (env.get('OTEL_SERVICE_NAME') !== name) {
    problems.push(`${where}: OTEL_SERVICE_NAME is not ${name}`);
  }
  return problems;
}

/** Every `http://<process>:<port>` value must name a Stamp process at its own port. */
function checkServiceUrls(env: ReadonlyMap<string, string>, where: string): string[] {
  const problems: string[] = [];
  for (const [key, value] of env) {
    const match = /^http:\/\/([a-z-]+):(\d+)$/.exec(value);
    if (match === null || key === 'STAMP_PUBLIC_URL') continue;
    const target = match[1] ?? '';
    if (PROCESSES[target] !== Number(match[2])) {
      problems.push(`${where}: ${key}=${value} is not a Stamp process at its port`);
    }
  }
  return problems;
}

function only<T>(items: readonly T[], what: string): T {
  if (items.length !== 1 || items[0] === undefined) {
    throw new Error(`expected exactly one ${what}, found ${items.length}`);
  }
  return items[0];
}

function containerOf(deployment: Resource): JsonObject {
  const containers = asArray(at(deployment.body, 'spec.template.spec.containers'), 'containers');
  return asObject(only(containers, `container in ${idOf(deployment)}`), idOf(deployment));
}

/** Replicas a Deployment can reach: its HPA's maxReplicas, else its replicas. */
function maxReplicas(deployment: Resource, resources: readonly Resource[]): number {
  const hpa = resources.find(
    (r) =>
      kindOf(r) === 'HorizontalPodAutoscaler' &&
      at(r.body, 'spec.scaleTargetRef.name') === nameOf(deployment),
  );
  const value =
    hpa === undefined ? at(deployment.body, 'spec.replicas') : at(hpa.body, 'spec.maxReplicas');
  return typeof value === 'number' ? value : 1;
}

/** The invariants every render (base and overlays) must keep; returns the problems found. */
function checkInvariants(resources: readonly Resource[]): string[] {
  const problems: string[] = [];
  const ofKind = (kind: string): Resource[] => resources.filter((r) => kindOf(r) === kind);
  const deployments = ofKind('Deployment');
  const names = deployments.map(nameOf).sort();
  if (names.join() !== [...PROCESS_NAMES].sort().join()) {
    problems.push(`Deployments are ${names.join()}, expected ${PROCESS_NAMES.join()}`);
  }
  if (ofKind('Namespace').map(nameOf).join() !== NAMESPACE) {
    problems.push(`expected the Namespace ${NAMESPACE}`);
  }
  for (const r of resources) {
    const namespace = text(at(r.body, 'metadata.namespace'));
    if (!CLUSTER_SCOPED.has(kindOf(r)) && namespace !== NAMESPACE) {
      problems.push(`${idOf(r)}: in namespace ${namespace ?? '(none)'}`);
    }
  }

  const partitions = new Set<string>();
  for (const deployment of deployments) {
    const name = nameOf(deployment);
    const where = `Deployment/${name}`;
    const pod = asObject(at(deployment.body, 'spec.template.spec'), where);
    const c = containerOf(deployment);
    const args = JSON.stringify(c.args ?? c.command);
    if (args !== JSON.stringify(['node', `services/${name}/src/main.ts`])) {
      problems.push(`${where}: runs ${args}`);
    }
    const ports = asArray(c.ports, `${where}.ports`);
    const inbound = INBOUND_PORTS[name];
    const port = only(
      ports.filter((p) => inbound === undefined || at(p, 'name') !== inbound.name),
      `HTTP port in ${where}`,
    );
    if (inbound !== undefined) {
      const extra = ports.find((p) => at(p, 'name') === inbound.name);
      if (at(extra ?? {}, 'containerPort') !== inbound.port) {
        problems.push(`${where}: no ${inbound.name} port ${inbound.port}`);
      }
      const outside = ofKind('Service').find((s) => nameOf(s) === `${name}-inbound`);
      const targets = asArray(at(outside?.body ?? {}, 'spec.ports') ?? [], `${name}-inbound`);
      if (!targets.some((p) => at(p, 'targetPort') === inbound.name)) {
        problems.push(`${where}: no Service ${name}-inbound to its ${inbound.name} port`);
      }
    }
    const containerPort = at(port, 'containerPort');
    const portName = text(at(port, 'name'));
    if (containerPort !== PROCESSES[name]) problems.push(`${where}: port ${show(containerPort)}`);
    const samePort = (value: Json | undefined): boolean =>
      value === containerPort || (portName !== undefined && value === portName);
    for (const [probe, path] of [
      ['readinessProbe', '/readyz'],
      ['livenessProbe', '/healthz'],
    ] as const) {
      if (at(c, `${probe}.httpGet.path`) !== path || !samePort(at(c, `${probe}.httpGet.port`))) {
        problems.push(`${where}: ${probe} is not GET ${path} on the container port`);
      }
    }
    for (const resource of ['cpu', 'memory']) {
      const request = quantity(at(c, `resources.requests.${resource}`));
      const limit = quantity(at(c, `resources.limits.${resource}`));
      if (!(request > 0 && limit >= request)) {
        problems.push(`${where}: ${resource} needs a request and a limit at least as large`);
      }
    }
    if (
      at(pod, 'securityContext.runAsNonRoot') !== true ||
      at(c, 'securityContext.readOnlyRootFilesystem') !== true ||
      at(c, 'securityContext.allowPrivilegeEscalation') !== false
    ) {
      problems.push(`${where}: not non-root with a read-only root filesystem`);
    }
    if (pod.terminationGracePeriodSeconds !== 30) {
      problems.push(`${where}: terminationGracePeriodSeconds is not 30`);
    }
    const labels = asObject(at(deployment.body, 'spec.template.metadata.labels'), where);
    const selects = (selector: Json | undefined): boolean =>
      isObject(selector) &&
      Object.keys(selector).length > 0 &&
      Object.entries(selector).every(([key, value]) => labels[key] === value);
    if (!selects(at(deployment.body, 'spec.selector.matchLabels'))) {
      problems.push(`${where}: its selector does not match its pod labels`);
    }
    const services = ofKind('Service').filter(
      (s) => selects(at(s.body, 'spec.selector')) && nameOf(s) !== `${name}-inbound`,
    );
    const service = services.find((s) => nameOf(s) === name);
    if (service === undefined || services.length !== 1) {
      problems.push(`${where}: not selected by exactly one Service, named ${name}`);
    } else {
      const servicePorts = asArray(at(service.body, 'spec.ports'), `Service/${name}`);
      const ok = servicePorts.some(
        (p) => at(p, 'port') === containerPort && samePort(at(p, 'targetPort')),
      );
      if (!ok) problems.push(`Service/${name}: does not expose port ${show(containerPort)}`);
    }

    const env = effectiveEnv(c, resources);
    problems.push(...checkEnv(name, env, where), ...checkServiceUrls(env, where));
    for (const item of asArray(c.env ?? [], `${where}.env`)) {
      const ref = at(item, 'valueFrom.secretKeyRef');
      if (!isObject(ref) || ref.optional === true) continue;
      const secret = ofKind('Secret').find((s) => nameOf(s) === ref.name);
      const data = { ...asObject(secret?.body.stringData ?? {}, 'stringData') };
      Object.assign(data, asObject(secret?.body.data ?? {}, 'data'));
      if (typeof ref.key !== 'string' || !(ref.key in data)) {
        problems.push(`${where}: Secret ${show(ref.name)} has no key ${show(ref.key)}`);
      }
    }
    partitions.add(env.get('STAMP_KAFKA_PARTITIONS') ?? '');
    const replicas = maxReplicas(deployment, resources);
    if (Number(env.get('STAMP_KAFKA_PARTITIONS')) < replicas) {
      problems.push(
        `${where}: up to ${replicas} replicas but STAMP_KAFKA_PARTITIONS=${env.get('STAMP_KAFKA_PARTITIONS') ?? ''}`,
      );
    }
  }
  if (partitions.size !== 1) {
    problems.push(`processes disagree on STAMP_KAFKA_PARTITIONS: ${[...partitions].join()}`);
  }

  for (const hpa of ofKind('HorizontalPodAutoscaler')) {
    const where = `HorizontalPodAutoscaler/${nameOf(hpa)}`;
    const target = asObject(at(hpa.body, 'spec.scaleTargetRef'), where);
    const deployment = deployments.find((d) => nameOf(d) === target.name);
    if (target.kind !== 'Deployment' || target.apiVersion !== 'apps/v1' || !deployment) {
      problems.push(`${where}: targets no existing Deployment`);
      continue;
    }
    if (!STATELESS.includes(nameOf(deployment))) {
      problems.push(`${where}: ${nameOf(deployment)} must not be autoscaled`);
    }
    const min = at(hpa.body, 'spec.minReplicas');
    const max = at(hpa.body, 'spec.maxReplicas');
    if (typeof min !== 'number' || typeof max !== 'number' || min > max) {
      problems.push(`${where}: minReplicas ${show(min)} > maxReplicas ${show(max)}`);
    }
    const cpu = asArray(at(hpa.body, 'spec.metrics') ?? [], where).find(
      (m) => at(m, 'type') === 'Resource' && at(m, 'resource.name') === 'cpu',
    );
    if (at(cpu, 'resource.target.type') !== 'Utilization') {
      problems.push(`${where}: no CPU utilisation target`);
    }
    if (!(quantity(at(containerOf(deployment), 'resources.requests.cpu')) > 0)) {
      problems.push(`${where}: its Deployment requests no CPU, so utilisation is undefined`);
    }
  }
  const relay = deployments.find((d) => nameOf(d) === 'relay');
  if (relay !== undefined && at(relay.body, 'spec.replicas') !== 2) {
    problems.push('Deployment/relay: expected 2 replicas (one active by lease, one standby)');
  }

  const gateway = deployments.find((d) => nameOf(d) === 'gateway');
  const gatewayLabels = at(gateway?.body, 'spec.template.metadata.labels');
  const pdbs = ofKind('PodDisruptionBudget').filter((p) => {
    const selector = at(p.body, 'spec.selector.matchLabels');
    return (
      isObject(selector) &&
      isObject(gatewayLabels) &&
      Object.entries(selector).every(([key, value]) => gatewayLabels[key] === value)
    );
  });
  const minAvailable = at(pdbs[0]?.body, 'spec.minAvailable');
  const gatewayReplicas = at(gateway?.body, 'spec.replicas');
  if (
    pdbs.length !== 1 ||
    typeof minAvailable !== 'number' ||
    typeof gatewayReplicas !== 'number' ||
    minAvailable >= gatewayReplicas
  ) {
    problems.push('gateway: needs one PodDisruptionBudget with minAvailable below its replicas');
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Compose

function loadCompose(file: string): JsonObject {
  const doc = parseDocument(readFileSync(file, 'utf8'), { merge: true });
  if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message ?? ''}`);
  const value: unknown = doc.toJS();
  return asObject(toJson(value, relative(root, file)), relative(root, file));
}

function composeEnv(service: JsonObject): Map<string, string> {
  const env = new Map<string, string>();
  for (const [key, value] of Object.entries(asObject(service.environment ?? {}, 'environment'))) {
    env.set(key, show(value));
  }
  return env;
}

function imageOf(service: Json | undefined): string {
  return text(at(service, 'image')) ?? '';
}

// ---------------------------------------------------------------------------------------------

const rendered = new Map<string, Resource[]>();
/** Renders a kustomization once (inside a test, so that a render error fails that test). */
function renderOnce(dir: string): Resource[] {
  const cached = rendered.get(dir) ?? render(dir);
  rendered.set(dir, cached);
  return cached;
}
const renders: readonly (readonly [string, string])[] = [
  ['base', baseDir],
  ['production', productionDir],
];

describe('kustomize render used by these checks', () => {
  it('merges containers and env by name, deletes on null, and replaces other lists', () => {
    const merged = strategicMerge(
      {
        replicas: 1,
        paused: false,
        containers: [
          { name: 'a', args: ['x', 'y'], env: [{ name: 'A', value: '1' }] },
          { name: 'b', args: ['z'] },
        ],
      },
      {
        replicas: 3,
        paused: null,
        containers: [{ name: 'a', args: ['w'], env: [{ name: 'B', value: '2' }] }],
      },
      '',
      'test',
    );
    expect(merged).toEqual({
      replicas: 3,
      containers: [
        {
          name: 'a',
          args: ['w'],
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
        },
        { name: 'b', args: ['z'] },
      ],
    });
    expect(() => strategicMerge({}, { $patch: 'delete' }, '', 'test')).toThrow(/directive/);
  });

  it('rewrites image names and tags like kustomize images', () => {
    const rules = [{ name: 'stamp', newName: 'registry.example.com/stamp', newTag: '1.2.3' }];
    expect(applyImageRules('stamp:latest', rules)).toBe('registry.example.com/stamp:1.2.3');
    expect(applyImageRules('stamp', rules)).toBe('registry.example.com/stamp:1.2.3');
    expect(applyImageRules('other:1', rules)).toBe('other:1');
  });

  it('rejects an invalid object and an unknown kind (the schema check can fail)', () => {
    const problems = validateAll([
      {
        label: 'broken',
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 'three' } },
      },
      { label: 'unknown', apiVersion: 'v1', kind: 'NoSuchKind', body: {} },
    ]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/replicas must be integer/);
    expect(problems[1]).toMatch(/no Kubernetes schema/);
  });
});

describe('deploy/kubernetes', () => {
  it('holds only files that a kustomization uses', () => {
    const used = new Set<string>();
    const visit = (dir: string): void => {
      used.add(join(dir, 'kustomization.yaml'));
      const k = loadKustomization(dir);
      for (const entry of [...k.resources, ...k.patches]) {
        const path = resolve(dir, entry);
        if (statSync(path).isDirectory()) visit(path);
        else used.add(path);
      }
    };
    visit(productionDir);
    const unused = yamlFiles(kubeDir).filter((file) => !used.has(file));
    expect(unused.map((file) => relative(root, file))).toEqual([]);
  });

  it('validates every object of every file against its kind schema', () => {
    const items: ValidationItem[] = [];
    for (const dir of [baseDir, productionDir]) {
      const k = loadKustomization(dir);
      for (const entry of k.resources) {
        const path = resolve(dir, entry);
        if (!statSync(path).isDirectory()) {
          items.push(...loadResources(path).map((r) => itemOf(r, 'file')));
        }
      }
      for (const entry of k.patches) {
        items.push(...loadResources(resolve(dir, entry)).map((r) => itemOf(r, 'patch', true)));
      }
    }
    expect(items.length).toBeGreaterThanOrEqual(PROCESS_NAMES.length * 2 + 4);
    expect(validateAll(items)).toEqual([]);
  });

  describe.each(renders)('rendered %s', (label, dir) => {
    it('validates against the Kubernetes schemas', () => {
      expect(validateAll(renderOnce(dir).map((r) => itemOf(r, label)))).toEqual([]);
    });

    it('keeps the deployment invariants', () => {
      expect(checkInvariants(renderOnce(dir))).toEqual([]);
    });
  });

  it('scales the production overlay out, autoscales the stateless services, pins the image', () => {
    const problems: string[] = [];
    const base = renderOnce(baseDir);
    const production = renderOnce(productionDir);
    for (const name of PROCESS_NAMES) {
      const find = (rs: readonly Resource[]): Resource =>
        only(
          rs.filter((r) => idOf(r) === `Deployment/${name}`),
          `Deployment/${name}`,
        );
      const before = find(base);
      const after = find(production);
      const grew = (path: string): boolean =>
        quantity(at(containerOf(after), path)) >= quantity(at(containerOf(before), path));
      const replicas = (r: Resource): number => Number(at(r.body, 'spec.replicas'));
      // More replicas for every stateless service; the relay stays at one active and one standby.
      if (STATELESS.includes(name) ? replicas(after) <= replicas(before) : replicas(after) < 2) {
        problems.push(`${name}: not scaled out in production`);
      }
      const requestsCpu = 'resources.requests.cpu';
      const bigger =
        quantity(at(containerOf(after), requestsCpu)) >
        quantity(at(containerOf(before), requestsCpu));
      if (
        !bigger ||
        !['requests.memory', 'limits.cpu', 'limits.memory'].every((p) => grew(`resources.${p}`))
      ) {
        problems.push(`${name}: resources not raised in production`);
      }
      const image = text(containerOf(after).image) ?? '';
      const tag = /^[^:@]+\/[^/:@]+:([\w][\w.-]*)$/.exec(image)?.[1];
      if (tag === undefined || tag === 'latest') {
        problems.push(`${name}: image ${image} is not pinned to a tag`);
      }
      const hpas = production.filter(
        (r) =>
          kindOf(r) === 'HorizontalPodAutoscaler' &&
          at(r.body, 'spec.scaleTargetRef.name') === name,
      );
      if (hpas.length !== (STATELESS.includes(name) ? 1 : 0)) {
        problems.push(`${name}: ${hpas.length} HPAs`);
      }
      for (const hpa of hpas) {
        const utilization = asArray(at(hpa.body, 'spec.metrics'), 'metrics').map((m) =>
          at(m, 'resource.name') === 'cpu' ? at(m, 'resource.target.averageUtilization') : null,
        );
        if (utilization.map(show).join() !== '70') {
          problems.push(`${name}: HPA does not target 70% CPU`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('docker-compose.yml', () => {
  let services: JsonObject = {};
  beforeAll(() => {
    services = asObject(loadCompose(join(root, 'docker-compose.yml')).services, 'services');
  });
  /** The arguments the Kubernetes base runs a process with, as JSON. */
  const manifestArgs = (name: string): string => {
    const deployment = only(
      renderOnce(baseDir).filter((r) => idOf(r) === `Deployment/${name}`),
      `Deployment/${name}`,
    );
    return JSON.stringify(containerOf(deployment).args);
  };

  it('runs the engines and a mail catcher, with healthchecks on the engines', () => {
    expect(imageOf(services.kurrentdb)).toMatch(/^docker\.kurrent\.io\/.*kurrentdb:25\.1$/);
    expect(imageOf(services.kafka)).toBe('apache/kafka:4.1.0');
    expect(imageOf(services.mongodb)).toMatch(/^mongo:8/);
    expect(show(at(services.kafka, 'environment.KAFKA_PROCESS_ROLES'))).toMatch(/controller/);
    expect(Object.values(services).some((s) => /mailpit/.test(imageOf(s)))).toBe(true);
    for (const engine of ['kurrentdb', 'kafka', 'mongodb']) {
      expect(at(services[engine], 'healthcheck.test')).toBeDefined();
    }
  });

  it.each(PROCESS_NAMES)('runs %s from the shared image like the manifests do', (name) => {
    const service = asObject(services[name], name);
    expect(JSON.stringify(service.command)).toBe(manifestArgs(name));
    expect(at(service, 'build.dockerfile')).toBe('deploy/Dockerfile');
    expect(imageOf(service)).toBe(imageOf(services.gateway));
    expect(JSON.stringify(at(service, 'healthcheck.test'))).toContain('/readyz');
    for (const engine of ['kurrentdb', 'kafka', 'mongodb']) {
      expect(at(service, `depends_on.${engine}.condition`)).toBe('service_healthy');
    }
    const env = composeEnv(service);
    expect([...checkEnv(name, env, name), ...checkServiceUrls(env, name)]).toEqual([]);
  });

  it("sends mail to the catcher and publishes no Stamp port but the gateway's and inbound SMTP", () => {
    const smtp = composeEnv(asObject(services.sending, 'sending')).get('STAMP_SMTP_URL') ?? '';
    const host = /^smtp:\/\/([^:/]+)/.exec(smtp)?.[1] ?? '';
    expect(imageOf(services[host])).toMatch(/mailpit/);
    for (const name of PROCESS_NAMES.filter((n) => n !== 'gateway')) {
      const inbound = INBOUND_PORTS[name];
      expect(at(services[name], 'ports')).toEqual(
        inbound === undefined ? undefined : [`${inbound.port}:${inbound.port}`],
      );
    }
  });

  it('keeps the embedded single-process mode in deploy/compose.embedded.yml', () => {
    const embedded = loadCompose(join(root, 'deploy', 'compose.embedded.yml'));
    const stamp = asObject(at(embedded, 'services.stamp'), 'stamp');
    expect(stamp.command).toEqual(['node', 'services/lite/src/main.ts']);
    expect(at(stamp, 'build.dockerfile')).toBe('deploy/Dockerfile');
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = readFileSync(join(root, 'deploy', 'Dockerfile'), 'utf8');

  it('builds on Node 24 with the locked dependencies and runs as the unprivileged user', () => {
    expect(dockerfile).toMatch(/^FROM node:24-bookworm-slim$/m);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile --prod=false/);
    // The dashboard's build, served by the gateway.
    expect(dockerfile).toMatch(/pnpm run dashboard/);
    // uid 1000 in the node image, the runAsUser of the Kubernetes manifests.
    expect(dockerfile).toMatch(/^USER node$/m);
  });
});
