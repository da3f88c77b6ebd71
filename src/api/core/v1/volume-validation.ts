/**
 * Validation of a pod's volumes as upstream's ValidateVolumes does it, for
 * the common sources (names unique DNS labels, exactly one source, the
 * required fields and modes of emptyDir, hostPath, secret, configMap,
 * persistentVolumeClaim, downwardAPI and projected volumes).
 */
import type { KeyToPath, Volume } from 'kubernetes-types/core/v1.js';
import { duplicate, forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../../../machinery/field-errors.js';
import { isDNS1123Subdomain } from '../../../machinery/validation/names.js';
import { validateDNS1123Label, validateLocalDescendingPath } from './container-validation.js';
import { volumeSources } from './defaults.js';
import { parseQuantityNanos } from './quantity.js';

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';

/** The valid volumes' names, for volume mounts to refer to, and the errors of the rest. */
export function validateVolumes(volumes: readonly Volume[] | undefined, path: FieldPath): { names: Set<string>; errors: FieldError[] } {
  const names = new Set<string>();
  const errors: FieldError[] = [];
  (volumes ?? []).forEach((v, i) => {
    const p = path.index(i);
    const errs = validateVolumeSource(v, p);
    const name = v.name ?? '';
    if (name === '') errs.push(required(p.child('name'), ''));
    else errs.push(...validateDNS1123Label(name, p.child('name')));
    if (names.has(name)) errs.push(duplicate(p.child('name'), name));
    if (errs.length === 0) names.add(name);
    else errors.push(...errs);
  });
  return { names, errors };
}

function validateVolumeSource(v: Volume, path: FieldPath): FieldError[] {
  const sources = volumeSources(v);
  if (sources.length === 0) return [required(path, 'must specify a volume type')];
  const errs: FieldError[] = [];
  for (const extra of sources.slice(1)) errs.push(forbidden(path.child(extra), 'may not specify more than 1 volume type'));
  const source = sources[0]!;
  const p = path.child(source);
  switch (source) {
    case 'emptyDir': {
      const medium = v.emptyDir?.medium ?? '';
      const size = v.emptyDir?.sizeLimit;
      if (size !== undefined && size !== null) {
        const q = parseQuantityNanos(size);
        if (q !== undefined && q < 0n) errs.push(forbidden(p.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      }
      if (medium !== '' && medium !== 'Memory' && !medium.startsWith('HugePages')) {
        // Upstream's StorageMedium is free text checked elsewhere; nothing to add here.
      }
      break;
    }
    case 'hostPath': {
      const hp = v.hostPath!;
      if ((hp.path ?? '') === '') errs.push(required(p.child('path'), ''));
      else errs.push(...validatePathNoBacksteps(hp.path, p.child('path')));
      const types = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];
      if (hp.type !== undefined && hp.type !== null && !types.includes(hp.type)) {
        errs.push(notSupported(p.child('type'), hp.type, types));
      }
      break;
    }
    case 'secret': {
      const s = v.secret!;
      if ((s.secretName ?? '') === '') errs.push(required(p.child('secretName'), ''));
      errs.push(...validateMode(s.defaultMode, p.child('defaultMode')));
      errs.push(...validateItems(s.items, p.child('items')));
      break;
    }
    case 'configMap': {
      const c = v.configMap!;
      if ((c.name ?? '') === '') errs.push(required(p.child('name'), ''));
      else errs.push(...isDNS1123Subdomain(c.name!).map((m) => invalid(p.child('name'), c.name, m)));
      errs.push(...validateMode(c.defaultMode, p.child('defaultMode')));
      errs.push(...validateItems(c.items, p.child('items')));
      break;
    }
    case 'persistentVolumeClaim': {
      if ((v.persistentVolumeClaim!.claimName ?? '') === '') errs.push(required(p.child('claimName'), ''));
      break;
    }
    case 'downwardAPI': {
      const d = v.downwardAPI!;
      errs.push(...validateMode(d.defaultMode, p.child('defaultMode')));
      (d.items ?? []).forEach((item, i) => {
        const ip = p.child('items').index(i);
        if ((item.path ?? '') === '') errs.push(required(ip.child('path'), ''));
        else errs.push(...validateLocalDescendingPath(item.path, ip.child('path')));
        errs.push(...validateMode(item.mode, ip.child('mode')));
        if (item.fieldRef && item.resourceFieldRef) errs.push(invalid(ip, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
        if (!item.fieldRef && !item.resourceFieldRef) errs.push(required(ip, 'one of fieldRef and resourceFieldRef is required'));
      });
      break;
    }
    case 'projected': {
      const pr = v.projected!;
      errs.push(...validateMode(pr.defaultMode, p.child('defaultMode')));
      break;
    }
    case 'nfs': {
      const n = v.nfs!;
      if ((n.server ?? '') === '') errs.push(required(p.child('server'), ''));
      if ((n.path ?? '') === '') errs.push(required(p.child('path'), ''));
      else if (!n.path.startsWith('/')) errs.push(invalid(p.child('path'), n.path, 'must be an absolute path'));
      break;
    }
    default:
      break;
  }
  return errs;
}

function validateMode(mode: number | undefined, path: FieldPath): FieldError[] {
  if (mode === undefined || mode === null) return [];
  return mode > 0o777 || mode < 0 ? [invalid(path, mode, FILE_MODE_ERROR)] : [];
}

function validateItems(items: readonly KeyToPath[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (items ?? []).forEach((item, i) => {
    const p = path.index(i);
    if ((item.key ?? '') === '') errs.push(required(p.child('key'), ''));
    if ((item.path ?? '') === '') errs.push(required(p.child('path'), ''));
    else errs.push(...validateLocalDescendingPath(item.path, p.child('path')));
    errs.push(...validateMode(item.mode, p.child('mode')));
  });
  return errs;
}

function validatePathNoBacksteps(target: string, path: FieldPath): FieldError[] {
  return target.split(/[\\/]/).includes('..') ? [invalid(path, target, "must not contain '..'")] : [];
}
