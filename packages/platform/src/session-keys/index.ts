/** Session keys the shell keeps current: a JWKS file read again when it changes, a JWKS URL. */
export { JWKS_FILE_CHECK_MS, openJwksFile, type KeySourceLog } from './jwks-file-source.js';
export { JWKS_URL_COOLDOWN_MS, openJwksUrl, type RemoteJwksSource } from './jwks-url-source.js';
export {
  createGateWithSessionKeys,
  openSessionKeySource,
  type OpenedKeySource,
} from './open-session-key-source.js';
