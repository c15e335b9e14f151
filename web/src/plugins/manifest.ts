// Plugin manifest, revision 1 (seed part 2). The same rules are in Go
// (internal/webapp/manifest.go, `ermine plugin validate`); both test
// suites run manifest-vectors.json.

export interface Manifest {
  format: number;
  version: string;
  namespace: string;
  id: string;
  entrypoint: string;
  enabled: boolean;
}

export class ManifestError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = "ManifestError";
  }
}

/** Semantic Versioning 2.0.0. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** A URL slug: lower-case letters and digits in words joined by single hyphens. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_NAME_LENGTH = 64;

const isString = (v: unknown): v is string => typeof v === "string";
// Go's strings.TrimSpace and JavaScript's trim agree on ASCII whitespace.
const blank = (s: string) => s.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, "") === "";

/**
 * Checks a manifest (already parsed from JSON). Returns it with enabled
 * defaulting to true and the warnings that do not make it invalid (a
 * format other than 1: the seed says it is not enforced yet), or throws
 * a ManifestError naming the first wrong field.
 */
export function validateManifest(input: unknown): { manifest: Manifest; warnings: string[] } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ManifestError("manifest", "must be a JSON object");
  }
  const raw = input as Record<string, unknown>;
  const warnings: string[] = [];

  if (!("format" in raw)) throw new ManifestError("format", "is required (set it to 1)");
  const format = raw.format;
  if (typeof format !== "number" || !Number.isInteger(format) || Math.abs(format) > 2 ** 53) {
    throw new ManifestError("format", "must be an integer (1)");
  }
  if (format !== 1) {
    warnings.push(`format: ${format} is not 1; it is accepted for now, but set it to 1 to avoid future breakage`);
  }

  const str = (name: string): string => {
    if (!(name in raw)) throw new ManifestError(name, "is required");
    const v = raw[name];
    if (!isString(v)) throw new ManifestError(name, "must be a string");
    return v;
  };

  const version = str("version");
  if (!SEMVER.test(version)) throw new ManifestError("version", "must be a semantic version such as 1.0.0");

  const namespace = str("namespace");
  if (blank(namespace)) throw new ManifestError("namespace", "must not be empty");
  if ([...namespace].length > MAX_NAME_LENGTH) {
    throw new ManifestError("namespace", `must be at most ${MAX_NAME_LENGTH} characters`);
  }
  if (/[\/\u0000-\u001f\u007f]/.test(namespace)) {
    throw new ManifestError("namespace", 'must not contain "/" or control characters');
  }

  const id = str("id");
  if (id.length > MAX_NAME_LENGTH || !SLUG.test(id)) {
    throw new ManifestError(
      "id",
      `must be a URL slug (lower-case letters, digits and single hyphens, at most ${MAX_NAME_LENGTH} characters)`,
    );
  }

  const entrypoint = str("entrypoint");
  if (blank(entrypoint)) throw new ManifestError("entrypoint", "must be the JavaScript source of a function");

  let enabled = true;
  if ("enabled" in raw) {
    if (typeof raw.enabled !== "boolean") throw new ManifestError("enabled", "must be true or false");
    enabled = raw.enabled;
  }
  return { manifest: { format, version, namespace, id, entrypoint, enabled }, warnings };
}

/** Parses manifest JSON text, then validates it. */
export function parseManifest(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ManifestError("manifest", "must be a JSON object");
  }
  return validateManifest(value);
}

export const pluginKey = (namespace: string, id: string) => `${namespace}/${id}`;
