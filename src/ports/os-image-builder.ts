/**
 * OsImageBuilder: runs one On-Cluster Layering build (buildah in a process on the box; a Job on a
 * real cluster) and reports the pushed image's digest. The build controller supervises it: the
 * signal aborts it, a rejection is a failed build whose log the builder kept under `name`.
 */
export interface OsImageBuildInput {
  /** The MachineOSBuild's name: the log's name too. */
  readonly name: string;
  /** The build context's files (relative names → content), the Containerfile among them. */
  readonly context: Readonly<Record<string, string>>;
  readonly pushSpec: string;
}

export interface OsImageBuilder {
  build(input: OsImageBuildInput, signal?: AbortSignal): Promise<{ readonly digest: string }>;
}
