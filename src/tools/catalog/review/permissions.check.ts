import type { ReviewSubject } from '../auto-review';
import type { Permission } from '../catalog.types';
import { Findings } from './findings';
import { ParameterInfo, isRestricted } from './schema';
import { words } from './text';

/** A tool whose stated purpose is pure data processing: formatting, conversion, validation, counting. */
export const DATA_PROCESSING_PURPOSE =
  /^(\W*\w+\W+){0,2}?(format(s|ter|ting)?|pretty[- ]?print(s|er|ing)?|prettif(y|ies|ier)|beautif(y|ies|ier)|minif(y|ies|ier)|lint(s|er)?|validat(e|es|or)|clean(s|er)?|tid(y|ies)|normali[sz](e|es|er)|spell[- ]?check(s|er)?|counts?|hash(es)?|encod(e|es|er)|decod(e|es|er)|escap(e|es)|convert(s|er)?\b[^.]{0,40}\b(between|formats?|units?|to (json|yaml|csv|xml|markdown|html|text))|calculat(e|es|or)|computes?|render(s|er|ing)?|transform(s|er)?|pars(e|es|er)|slugif(y|ies))\b/i;
export const NAMES_A_REMOTE =
  /\b(url|uri|https?|web|internet|online|remote|api|fetch\w*|download\w*|upload\w*|send\w*|post\w*|e-?mail\w*|slack|github|gitlab|cloud|server|service|search\w*|webhook|notif\w*|sync\w*|publish\w*|deploy\w*|external|network|browser|page|site|bucket|database|db|repo\w*|cluster|account|maps?|geo\w*|weather|stocks?|quotes?|rates?|price\w*)\b/i;
export const DESTINATION_WORDS = new Set([
  'url',
  'uri',
  'endpoint',
  'webhook',
  'destination',
  'host',
  'hostname',
  'server',
  'callback',
  'recipient',
  'recipients',
  'to',
  'target',
  'bucket',
]);

/**
 * Formatting, conversion, validation or counting of what the caller passes in, with no remote service named in
 * the name or description. A tool that takes the ID of a stored object (a document, a spreadsheet, a project)
 * formats or counts what a service holds, and needs the network to reach it.
 */
export function describedAsDataProcessing(subject: ReviewSubject, parameters: ParameterInfo[]): boolean {
  const name = words(subject.name).join(' ');
  const description = (subject.description ?? '').trim();
  const claims = DATA_PROCESSING_PURPOSE.test(name) || DATA_PROCESSING_PURPOSE.test(description);
  return claims && !NAMES_A_REMOTE.test(`${name}. ${description}`) && !parameters.some(identifiesStoredObject);
}

/** `documentId`, `project_ids`: a parameter naming a stored object by its ID. */
function identifiesStoredObject(parameter: ParameterInfo): boolean {
  const nameWords = words(parameter.name);
  return nameWords.length > 1 && ['id', 'ids'].includes(nameWords[nameWords.length - 1]);
}

export function checkPermissions(subject: ReviewSubject, parameters: ParameterInfo[], findings: Findings): void {
  const has = (p: Permission) => subject.permissions.includes(p);
  if (has('network_external') && has('secret_access')) {
    findings.add(
      'permissions',
      35,
      'tool has both external network access and secret access',
      'split the tool, or restrict its network access to named domains',
    );
    const destination = parameters.find(
      (p) => words(p.name).some((w) => DESTINATION_WORDS.has(w)) && !isRestricted(p.schema, true),
    );
    if (destination) {
      findings.add(
        'permissions',
        15,
        `the caller chooses where the tool sends data (${destination.path}) while the tool can read secrets`,
        `pin ${destination.path} to allow-listed destinations`,
      );
    }
  }

  if (describedAsDataProcessing(subject, parameters)) {
    const unneeded = subject.permissions.filter((p) =>
      [
        'network_access',
        'network_external',
        'network_internal',
        'secret_access',
        'kubernetes_api',
        'database_access',
      ].includes(p),
    );
    for (const permission of unneeded) {
      findings.add(
        'permissions',
        20,
        `tool describes itself as local data processing but declares ${permission}`,
        `ask why a data-processing tool needs ${permission}; remove it or block the tool`,
      );
    }
  }
}
