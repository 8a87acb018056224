/** Tenant ids are opaque names chosen by operators (`acme`, `tenant_acme`). */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
export const TENANT_ID_RULE =
  'letters, digits, "_", ".", ":" or "-", starting with a letter or digit, at most 128 characters';
