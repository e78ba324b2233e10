// `npm run k8s:validate` (CI): checks deploy/kubernetes offline.
// 1. Every object against the Kubernetes JSON schemas that the npm packages `kubernetes-models` and
//    `@kubernetes-models/prometheus-operator` ship (no download at run time).
// 2. The choices that must match the service's real behaviour (README "Deploy"): probe paths and port, replicas,
//    non-root with a read-only root file system and /tmp writable, a grace period longer than the drain, the
//    kustomization listing every manifest but the example; the owner's credential (DATABASE_MIGRATION_URL) given to the
//    init container that migrates and never to the service's container (decision 0012).
// Prints one line per problem and exits 1 when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const dir = join(import.meta.dirname, '..', 'deploy', 'kubernetes');
const problems = [];
const objects = [];

/** Where the model class of an apiVersion lives. */
function modulePath(apiVersion) {
  if (apiVersion.startsWith('monitoring.coreos.com/'))
    return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return apiVersion === 'v1' ? 'kubernetes-models/v1' : `kubernetes-models/${apiVersion}`;
}

for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
    if (doc.errors.length) {
      problems.push(`${file}: YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const object = doc.toJS();
    if (!object) continue;
    const where = `${file}: ${object.kind}/${object.metadata?.name ?? '?'}`;
    objects.push({ file, object, where });
    if (object.kind === 'Kustomization') continue; // kustomize's own file, not an API object
    let models;
    try {
      models = await import(modulePath(object.apiVersion));
    } catch {
      problems.push(`${where}: no schema for apiVersion ${object.apiVersion}`);
      continue;
    }
    const Model = models[object.kind];
    if (!Model) {
      problems.push(`${where}: ${object.apiVersion} has no kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
}

const find = (kind) => objects.find((o) => o.object.kind === kind);
const check = (ok, message) => ok || problems.push(message);

const deployment = find('Deployment')?.object;
check(deployment, 'no Deployment');
if (deployment) {
  const pod = deployment.spec.template.spec;
  const api = pod.containers[0];
  const port = api.ports?.find((p) => p.name === 'http')?.containerPort;
  check(deployment.spec.replicas === 2, 'Deployment: 2 replicas');
  check(port === 3000, 'Deployment: the container listens on 3000 (PORT), port named http');
  for (const [probe, path] of [
    ['startupProbe', '/api/live'],
    ['livenessProbe', '/api/live'],
    ['readinessProbe', '/api/ready'],
  ]) {
    const get = api[probe]?.httpGet;
    check(get?.path === path && (get.port === 'http' || get.port === 3000), `Deployment: ${probe} GET ${path}`);
  }
  // /api/ready waits READY_TIMEOUT_MS (1500 ms by default) for the database before answering 503.
  const readyTimeoutMs = Number(find('ConfigMap')?.object.data?.READY_TIMEOUT_MS ?? 1500);
  check(
    api.readinessProbe?.timeoutSeconds * 1000 > readyTimeoutMs,
    `Deployment: readinessProbe.timeoutSeconds must exceed READY_TIMEOUT_MS (${readyTimeoutMs} ms)`,
  );
  // The drain after SIGTERM: requests in flight (each bounded by DB_STATEMENT_TIMEOUT_MS) and the delivery
  // worker's graceful stop (10 s in notification-queue.ts), after the preStop pause.
  const statementMs = Number(find('ConfigMap')?.object.data?.DB_STATEMENT_TIMEOUT_MS ?? 10000);
  const preStop = Number(api.lifecycle?.preStop?.exec?.command?.[1] ?? api.lifecycle?.preStop?.sleep?.seconds ?? 0);
  // The process's own bound (SHUTDOWN_TIMEOUT_MS, 30 s by default) ends a drain that takes longer: the grace must
  // cover it too, so that the pod exits by itself rather than by SIGKILL.
  const shutdownMs = Number(find('ConfigMap')?.object.data?.SHUTDOWN_TIMEOUT_MS ?? 30000);
  const drainSeconds = preStop + Math.max(statementMs / 1000 + 10, shutdownMs / 1000);
  check(
    pod.terminationGracePeriodSeconds > drainSeconds,
    `Deployment: terminationGracePeriodSeconds (${pod.terminationGracePeriodSeconds}) must exceed the drain (${drainSeconds} s)`,
  );
  check(pod.securityContext?.runAsNonRoot === true, 'Deployment: runAsNonRoot');
  check(api.securityContext?.readOnlyRootFilesystem === true, 'Deployment: readOnlyRootFilesystem');
  check(api.securityContext?.allowPrivilegeEscalation === false, 'Deployment: allowPrivilegeEscalation false');
  const tmp = api.volumeMounts?.find((m) => m.mountPath === '/tmp');
  check(
    tmp && pod.volumes?.some((v) => v.name === tmp.name && v.emptyDir),
    'Deployment: /tmp is an emptyDir (the root file system is read-only)',
  );
  check(api.resources?.requests?.cpu && api.resources?.limits?.memory, 'Deployment: CPU request, memory limit');
  const refs = (api.envFrom ?? []).map((e) => e.configMapRef?.name ?? e.secretRef?.name);
  check(refs.includes(find('ConfigMap')?.object.metadata.name), 'Deployment: envFrom the ConfigMap');
  check(refs.includes(find('Secret')?.object.metadata.name), 'Deployment: envFrom the Secret');
  // The tables' owner migrates in an init container; the service's container never holds its credential.
  const secrets = objects.filter((o) => o.object.kind === 'Secret').map((o) => o.object);
  const holdsOwner = (container) =>
    (container.env ?? []).some((e) => e.name === 'DATABASE_MIGRATION_URL') ||
    (container.envFrom ?? []).some((e) =>
      secrets.some((s) => s.metadata.name === e.secretRef?.name && 'DATABASE_MIGRATION_URL' in { ...s.data, ...s.stringData }),
    );
  const migrate = (pod.initContainers ?? []).find((c) => c.command?.join(' ').includes('dist/database/migrate.cli.js'));
  check(migrate, 'Deployment: an init container runs the migrations (node dist/database/migrate.cli.js)');
  const ownerRef = migrate?.env?.find((e) => e.name === 'DATABASE_MIGRATION_URL')?.valueFrom?.secretKeyRef;
  check(
    ownerRef && secrets.some((s) => s.metadata.name === ownerRef.name && ownerRef.key in { ...s.data, ...s.stringData }),
    'Deployment: the init container takes DATABASE_MIGRATION_URL from a Secret of the templates',
  );
  check(
    migrate?.image === api.image && migrate?.securityContext?.readOnlyRootFilesystem === true,
    'Deployment: the init container runs the same image, read-only',
  );
  for (const container of pod.containers)
    check(!holdsOwner(container), `Deployment: container ${container.name} must not hold DATABASE_MIGRATION_URL`);
  const labels = deployment.spec.template.metadata.labels;
  for (const kind of ['Service', 'PodDisruptionBudget', 'PodMonitor']) {
    const object = find(kind)?.object;
    const selector = kind === 'Service' ? object?.spec.selector : object?.spec.selector?.matchLabels;
    check(
      selector && Object.entries(selector).every(([k, v]) => labels[k] === v),
      `${kind}: its selector must match the Deployment's pods`,
    );
  }
  const hpa = find('HorizontalPodAutoscaler')?.object;
  check(
    hpa?.spec.scaleTargetRef.name === deployment.metadata.name && hpa.spec.minReplicas >= 2,
    'HorizontalPodAutoscaler: targets the Deployment, at least 2 replicas',
  );
}

for (const { object: secret, where } of objects.filter((o) => o.object.kind === 'Secret'))
  check(
    Object.values({ ...secret.data, ...secret.stringData }).every((v) => v === ''),
    `${where}: every value must be empty (no secret in the repository)`,
  );

const kustomization = find('Kustomization');
const listed = new Set(kustomization?.object.resources ?? []);
for (const file of new Set(objects.map((o) => o.file)))
  if (file !== kustomization?.file && !file.includes('.example.'))
    check(listed.has(file), `kustomization.yaml: ${file} is not listed`);

const validated = objects.filter((o) => o.object.kind !== 'Kustomization').length;
if (problems.length) {
  for (const problem of problems) console.error(`deploy/kubernetes: ${problem}`);
  process.exit(1);
}
console.log(`deploy/kubernetes: ${validated} objects valid against the Kubernetes schemas; probes and drain as the service behaves`);
