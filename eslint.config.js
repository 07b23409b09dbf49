// Lint config: typed rules plus the layer rules of docs/adr/0001-layering.md.
// A layer may import only the layers below it; pure layers get no I/O, no clock, no env.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

const IO_MODULES = [
  'fs',
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'node:http',
  'node:http2',
  'node:https',
  'node:tls',
  'node:os',
  'node:dgram',
  'node:worker_threads',
  'better-sqlite3',
  'etcd3',
  'pino',
  'prom-client',
  'execa',
  'undici',
  '@hono/node-server',
  'write-file-atomic',
];

// Layer folders are top-level under src/; API group folders share some names (src/api/operator/),
// so imports into src/api/ are never caught by a layer pattern; `./` stays inside the importer's layer.
// logic/ has folders named after the components it decides for (logic/operator/); denying a
// component's folder does not deny its pure core.
const deny = (...dirs) =>
  dirs.map((d) => ({
    group: [
      `**/${d}/**`,
      `../${d}/*`,
      `../../${d}/*`,
      '!**/api/**',
      ...(d === 'logic' ? [] : ['!**/logic/**']),
      '!./**',
    ],
    message: `layering: this layer may not import ${d}/`,
  }));

const PURE_GLOBALS = ['process', 'console', 'fetch', 'setTimeout', 'setInterval', 'setImmediate'];
const PURE_SYNTAX = [
  {
    selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
    message: 'pure core: inject a Clock',
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'pure core: inject a Clock',
  },
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']",
    message: 'pure core: pass randomness in',
  },
];

// A factory that returns an inline object type is usually a port re-declared to dodge the layer
// rule (an adapter may not import the component that consumes it): name the interface in ports/.
const NO_INLINE_PORT = {
  selector:
    'ExportNamedDeclaration > FunctionDeclaration > TSTypeAnnotation.returnType > TSTypeLiteral',
  message: 'layering: an adapter implements a port; declare its interface in src/ports/',
};

const L3 = [
  'controller',
  'daemon',
  'server',
  'apiserver',
  'client',
  'operator',
  'simulator',
  'dashboard',
  'deploy',
];
const sideways = (self) => L3.filter((d) => d !== self);

// The entry layer (docs/adr/0026-entry-layer.md), top to bottom: cmd/ (the composition root
// bin/mco.js runs), cli/ (the user-facing commands), box/ (the cluster-in-a-box supervisor),
// shell/ (what they share). Each imports only those below it; cmd/ takes from cli/ only the
// program it starts. Nothing under the entry layer imports any of it.
const ENTRY = ['cmd', 'cli', 'box', 'shell'];
const LOWER = ['lib', 'api', 'ignition', 'logic', 'ports', 'runtime', ...L3, 'adapters', 'storage'];
const entryZones = [
  {
    target: './src/cmd',
    from: './src/cli',
    except: ['./mco-program.ts'],
    message: 'entry layer: cmd/ starts the cli program (mco-program.ts), nothing else of cli/',
  },
  ...ENTRY.slice(1).flatMap((dir, i) =>
    ENTRY.slice(0, i + 1).map((above) => ({
      target: `./src/${dir}`,
      from: `./src/${above}`,
      message: `entry layer: ${dir}/ may not import ${above}/, which is above it`,
    })),
  ),
  ...LOWER.map((dir) => ({
    target: `./src/${dir}`,
    from: ENTRY.map((e) => `./src/${e}`),
    message: 'layering: only the entry layer imports cmd/, cli/, box/ and shell/',
  })),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.mco/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // The sources import `./x.js` for `./x.ts` (NodeNext); unresolved imports pass every path rule.
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unnecessary-condition': 'warn',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { zones: entryZones }],
      'max-depth': ['warn', 3],
      complexity: ['warn', 15],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/lib/**', 'src/api/**', 'src/ignition/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'pure core: take a port' })),
          patterns: deny('logic', 'ports', 'runtime', ...L3, 'adapters', 'storage', 'cmd', 'cli'),
        },
      ],
      'no-restricted-globals': ['error', ...PURE_GLOBALS],
      'no-restricted-syntax': ['error', ...PURE_SYNTAX],
    },
  },
  {
    files: ['src/logic/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name, message: 'pure core: take a port' })),
          patterns: deny('ports', 'runtime', ...L3, 'adapters', 'storage', 'cmd', 'cli'),
        },
      ],
      'no-restricted-globals': ['error', ...PURE_GLOBALS],
      'no-restricted-syntax': ['error', ...PURE_SYNTAX],
    },
  },
  {
    files: ['src/ports/**', 'src/runtime/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name })),
          patterns: deny(...L3, 'adapters', 'storage', 'cmd', 'cli'),
        },
      ],
      'no-restricted-globals': ['error', 'process'],
    },
  },
  ...L3.map((dir) => ({
    files: [`src/${dir}/**`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({ name })),
          patterns: deny(...sideways(dir), 'adapters', 'storage', 'cmd', 'cli'),
        },
      ],
      'no-restricted-globals': ['error', 'process'],
    },
  })),
  // L4: adapters/ and storage/ (the Storage implementations, which open files and sockets like
  // the adapters) use any driver; neither imports the other.
  {
    files: ['src/adapters/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: deny(...L3, 'storage', 'cmd', 'cli') }],
      'no-restricted-globals': ['error', 'process'],
      'no-restricted-syntax': ['error', NO_INLINE_PORT],
    },
  },
  {
    files: ['src/storage/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: deny(...L3, 'adapters', 'cmd', 'cli') }],
      'no-restricted-globals': ['error', 'process'],
      'no-restricted-syntax': ['error', NO_INLINE_PORT],
    },
  },
  {
    files: ['src/**/*.ts'],
    // A table-driven test's callback takes one parameter per column.
    ignores: ['**/*.test.ts'],
    rules: { 'max-params': ['error', 4] },
  },
  {
    // Implementations of the ResourceClient, ResourceStore and EventRecorder ports, whose verbs keep
    // client-go's and the API server's argument order: their parameter lists change with the port.
    files: [
      'src/adapters/https-resource-client.ts',
      'src/adapters/kube-client.ts',
      'src/adapters/node-kubeconfig-client.ts',
      'src/adapters/node-writes-router.ts',
      'src/apiserver/auth/rbac-write-through.ts',
      'src/apiserver/auth/restriction-admission.ts',
      'src/apiserver/store/create-resource-store.ts',
      'src/runtime/event-recorder.ts',
    ],
    rules: { 'max-params': ['warn', 4] },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
    },
  },
);
