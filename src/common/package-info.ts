/** The service's name and version, from package.json (dist/src/common and src/common both sit below it). */
export interface PackageInfo {
  name: string;
  version: string;
  description: string;
}

let info: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (info) return info;
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const p = require(rel) as Partial<PackageInfo>;
      return (info = { name: p.name ?? 'lms', version: p.version ?? '0.0.0', description: p.description ?? '' });
    } catch {
      // try the next layout
    }
  }
  return (info = { name: 'lms', version: '0.0.0', description: '' });
}
