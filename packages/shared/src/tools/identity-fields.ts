/**
 * Names a tool's input schema may not declare: who is calling, for which tenant, with what
 * authority or credentials. Those come only from the verified session (DESIGN §3); a model that
 * could name them could act as someone else.
 */

/**
 * The refused names, normalized (lower case, `_` and `-` removed). The list is deliberately about
 * the caller, not about business objects: `account_id` or `customer_id` name objects that the
 * resolution rung loads under the caller's tenant and are allowed; `user_id` and `owner_id` are
 * refused because in tool APIs they usually mean "act as this user" — a tool that looks people up
 * names the parameter after the object (`customer_id`, `member_id`, `recipient`). Bare words that
 * commonly name objects (`owner` of a repository, `org`, `username`, `permissions` of a file,
 * `scope` of a search, the `subject` of an email, the `principal` of a loan) are not on the list;
 * their identity forms (`subject_id`, `sub`, `principal_id`) are.
 */
export const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
  // tenant and organisation
  'tenant',
  'tenantid',
  'tenants',
  'tenantids',
  'orgid',
  'organizationid',
  'organisationid',
  // the acting user
  'user',
  'userid',
  'userids',
  'uid',
  'subjectid',
  'sub',
  'principalid',
  'actor',
  'actorid',
  'caller',
  'callerid',
  'ownerid',
  'onbehalfof',
  'actas',
  'runas',
  'impersonate',
  // authority
  'role',
  'roles',
  'isadmin',
  'superuser',
  'issuperuser',
  // session credentials
  'sessionid',
  'sessiontoken',
  'accesstoken',
  'authtoken',
  'idtoken',
  'refreshtoken',
  'bearertoken',
  'apikey',
  'apitoken',
  'jwt',
  'authorization',
  'credentials',
]);

/** Property names that reach JavaScript's object machinery: refused anywhere in a schema. */
export const FORBIDDEN_PROPERTY_NAMES: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

/** `tenant_id`, `Tenant-ID` and `tenantId` all normalize to `tenantid`. */
export function normalizeFieldName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/** Is `name` an identity, authority or credential field (case-insensitive, ignoring `_` and `-`)? */
export function isIdentityField(name: string): boolean {
  return IDENTITY_FIELDS.has(normalizeFieldName(name));
}
