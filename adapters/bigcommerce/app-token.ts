// The single-click app's auth callback: the code BigCommerce sends with the merchant's browser is
// exchanged at https://login.bigcommerce.com/oauth2/token for the store's access token ("Single-Click
// App OAuth Flow"). The token does not expire; a fresh auth callback replaces it when the merchant
// accepts new scopes.
import { RequestError } from 'got';
import { outboundGot } from '../../src/net/outbound.ts';
import { refusalOf, refusalText } from '../../src/net/refusal.ts';
import { asRecord, asString, parseJsonLossless } from '../shared/json.ts';
import { BridgeError } from '../../src/errors.ts';
import { trimTrailing } from '../../src/trim-trailing.ts';

export interface CodeExchange {
  /** https://login.bigcommerce.com by default. */
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  /** The auth callback URL, exactly as registered in the Developer Portal. */
  redirectUri: string;
  code: string;
  scope: string;
  context: string;
}

export interface StoreToken {
  accessToken: string;
  scope: string;
  storeHash: string;
  accountUuid: string | null;
}

export class BigCommerceAuthError extends BridgeError<'bigcommerce_auth_refused' | 'bigcommerce_auth_unavailable'> {
  /** BigCommerce answered and refused (a used or wrong code, a wrong client); otherwise it did not answer. */
  readonly refused: boolean;
  constructor(message: string, refused: boolean) {
    super(refused ? 'bigcommerce_auth_refused' : 'bigcommerce_auth_unavailable', message, {
      fix: refused
        ? 'Install the app again from the BigCommerce control panel; check BIGCOMMERCE_CLIENT_ID and BIGCOMMERCE_CLIENT_SECRET'
        : 'Try the install again in a few minutes',
    });
    this.refused = refused;
  }
}

export const storeHashOfContext = (context: string): string | undefined =>
  /^stores\/([a-z0-9]{1,32})$/.exec(context)?.[1];

/** The body carries the client secret: it goes to BigCommerce's login service (BIGCOMMERCE_LOGIN_URL) and nowhere it redirects. */
const login = outboundGot({ userAddress: false });

export async function exchangeBigCommerceCode(exchange: CodeExchange): Promise<StoreToken> {
  let response;
  try {
    response = await login.post(`${trimTrailing(exchange.loginUrl, '/')}/oauth2/token`, {
      json: {
        client_id: exchange.clientId,
        client_secret: exchange.clientSecret,
        code: exchange.code,
        context: exchange.context,
        scope: exchange.scope,
        grant_type: 'authorization_code',
        redirect_uri: exchange.redirectUri,
      },
      headers: { accept: 'application/json' },
      timeout: { request: 15_000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
      responseType: 'text',
    });
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal)
      throw new BigCommerceAuthError(
        `BigCommerce's token endpoint ${refusalText(refusal)}; check BIGCOMMERCE_LOGIN_URL (https://login.bigcommerce.com)`,
        true,
      );
    throw new BigCommerceAuthError(
      `BigCommerce's token endpoint did not answer (${error instanceof RequestError ? error.code : 'error'})`,
      false,
    );
  }
  const parsed = parseJsonLossless(response.body);
  const body = parsed.ok ? asRecord(parsed.value) : {};
  if (response.statusCode !== 200) {
    // Its own words only (error, error_description); nothing of ours is echoed.
    const said = asString(body.error_description) ?? asString(body.error) ?? asString(body.title) ?? '';
    throw new BigCommerceAuthError(
      `BigCommerce refused the install code (${response.statusCode}${said ? `: ${said.slice(0, 200)}` : ''})`,
      response.statusCode < 500,
    );
  }
  const accessToken = asString(body.access_token);
  const context = asString(body.context) ?? exchange.context;
  const storeHash = storeHashOfContext(context);
  if (!accessToken || !storeHash)
    throw new BigCommerceAuthError('BigCommerce answered the install without an access token or store', true);
  return {
    accessToken,
    scope: asString(body.scope) ?? exchange.scope,
    storeHash,
    accountUuid: asString(body.account_uuid),
  };
}
