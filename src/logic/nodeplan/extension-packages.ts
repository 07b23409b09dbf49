/**
 * Extensions as packages (docs/reference/extensions.md §4–5, docs/reference/render.md §3.7): an
 * extension is a name from the allowlist standing for a set of RPM packages. What rpm-ostree is
 * asked to install and uninstall follows upstream's generateExtensionsArgs: from the packages the
 * booted deployment requests, `--install` each required package that is missing (sorted), then
 * `--uninstall` each MCO-managed package that is requested but no longer required (sorted);
 * packages outside the allowlist's sets are the user's and never touched.
 */
import { SupportedExtensions } from '../../api/machineconfiguration/v1/constants.js';

const sorted = (s: ReadonlySet<string>): string[] => [...s].sort();

/** Names not in the allowlist, in the order given. */
export function unknownExtensions(extensions: readonly string[]): string[] {
  return extensions.filter((x) => !Object.hasOwn(SupportedExtensions, x));
}

/** upstream's render error for unknown names: `invalid extensions found: [a b]`. */
export function invalidExtensionsMessage(unknown: readonly string[]): string {
  return `invalid extensions found: [${unknown.join(' ')}]`;
}

/** The packages the extensions stand for (unknown names contribute nothing). */
export function requiredExtensionPackages(extensions: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const x of extensions) {
    if (!Object.hasOwn(SupportedExtensions, x)) continue;
    for (const p of SupportedExtensions[x] ?? []) out.add(p);
  }
  return out;
}

const managedPackages: ReadonlySet<string> = new Set(Object.values(SupportedExtensions).flat());

/**
 * The `rpm-ostree update` arguments after `update` (upstream generateExtensionsArgs); empty when
 * nothing changes ("No extension updates required").
 */
export function extensionPackageArgs(
  installed: ReadonlySet<string>,
  extensions: readonly string[],
): string[] {
  const required = requiredExtensionPackages(extensions);
  const install = new Set([...required].filter((p) => !installed.has(p)));
  const uninstall = new Set(
    [...installed].filter((p) => managedPackages.has(p) && !required.has(p)),
  );
  return [
    ...sorted(install).flatMap((p) => ['--install', p]),
    ...sorted(uninstall).flatMap((p) => ['--uninstall', p]),
  ];
}

/**
 * Required packages the deployment does not request, as upstream's verification prints them:
 * `<package> (from extension <name>)`, in extension then package order.
 */
export function missingExtensionPackages(
  installed: ReadonlySet<string>,
  extensions: readonly string[],
): string[] {
  const out: string[] = [];
  for (const x of extensions) {
    for (const p of SupportedExtensions[x] ?? [])
      if (!installed.has(p)) out.push(`${p} (from extension ${x})`);
  }
  return out;
}

/** The extensions whose every package the deployment requests (how a CoreOS host reports them). */
export function installedExtensions(installed: ReadonlySet<string>): string[] {
  return Object.entries(SupportedExtensions)
    .filter(([, pkgs]) => pkgs.every((p) => installed.has(p)))
    .map(([name]) => name)
    .sort();
}

/** The target's extensions without duplicates, sorted (render joins them without dedupe). */
export function normalizedExtensions(extensions: readonly string[]): string[] {
  return [...new Set(extensions)].sort();
}
