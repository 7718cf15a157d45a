// A real WordPress for a test: Debian's `wordpress` package (6.1) copied to a temporary folder, configured for a
// throwaway database in the local MariaDB, installed, with the loyalty-bridge plugin activated, a customer and a
// page with [loyalty_points] made (wordpress/tests/real-wordpress/wp-cli.php, as the shell smoke run does), and
// served by PHP's built-in server. The site's address is a small front in Node that hands everything to PHP but
// WooCommerce's own routes: WooCommerce is in neither Debian nor npm, so its app authentication (/wc-auth/v1 and
// the login it asks first), its REST API (/wp-json/...) and its webhooks are played by test/helpers/fake-woocommerce.ts
// behind the same address, as they would be the same site. Pretty permalinks stay off, so WordPress's own REST API
// is reached by ?rest_route= (what the plugin prints), never by /wp-json/.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const DEBIAN_WORDPRESS = '/usr/share/wordpress';
const PLUGIN = fileURLToPath(new URL('../../wordpress/loyalty-bridge', import.meta.url));
const STEPS = fileURLToPath(new URL('../../wordpress/tests/real-wordpress/wp-cli.php', import.meta.url));
const SYSTEM_CAS = '/etc/ssl/certs/ca-certificates.crt';

/** The accounts wp-cli.php's install step makes. */
export const WP_ADMIN = { login: 'admin', password: 'admin-password-1' };
export const WP_CUSTOMER = { login: 'ada', password: 'customer-password-1', email: 'ada.account@example.com' };
export const WP_CUSTOMER_2 = { login: 'bea', password: 'customer-password-2', email: 'bea.account@example.com' };
/** An author: writes posts, without unfiltered_html. */
export const WP_AUTHOR = { login: 'mallet', password: 'author-password-1' };
/** A shop manager as WooCommerce makes one: manages WooCommerce, neither manage_options nor unfiltered_html. */
export const WP_SHOP_MANAGER = { login: 'manager', password: 'manager-password-1' };

const run = promisify(execFile);
const answers = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const mysql = (sql: string) => spawnSync('mysql', ['-uroot', '-h127.0.0.1', '-e', sql], { encoding: 'utf8' });

/** Why a real WordPress cannot run here (a developer's machine), or undefined; .ci/run installs what is missing. */
export function realWordPressMissing(): string | undefined {
  if (!existsSync(`${DEBIAN_WORDPRESS}/wp-settings.php`)) return `no ${DEBIAN_WORDPRESS} (apt-get install wordpress)`;
  if (!answers('php', ['-r', 'exit(extension_loaded("mysqli") ? 0 : 1);']))
    return 'no php with mysqli (apt-get install php-cli php-mysql)';
  if (mysql('SELECT 1').status !== 0)
    return 'MariaDB does not answer root at 127.0.0.1:3306 (apt-get install mariadb-server)';
  return undefined;
}

export interface RealWordPress {
  /** The site's address (WP_HOME): http://127.0.0.1:<port>. */
  url: string;
  /** The published page with [loyalty_points] and the plugin's block. */
  rewardsPage: string;
  /** Sends WooCommerce's routes to this server (the fake's own address). */
  wooCommerceAt(url: string): void;
  /** The plugin's lines in WordPress's debug.log (WordPress 6.1's own PHP 8.2 deprecations left out). */
  pluginNotices(): string[];
  /** The mails WordPress sent (wp_mail), first first: caught before they leave, as a site without a mailer has none. */
  mails(): Array<{ to: string | string[]; subject: string; message: string }>;
  /**
   * A step of wp-cli.php on this site (WordPress loaded in PHP): its output, trimmed. Not synchronous: a step may call
   * a server of this process (the bridge), which must go on answering meanwhile.
   */
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export interface RealWordPressOptions {
  /** Certificates (PEM) this site trusts besides the system's, as if a public authority had issued them. */
  trust?: string[];
}

const listening = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** WooCommerce's login for app authentication is wp-login.php, whose form returns to /wc-auth/: the fake's. */
const isWooCommerceLogin = (method: string | undefined, path: string, body: Buffer) =>
  method === 'POST' && path.startsWith('/wp-login.php') && /redirect_to=[^&]*%2Fwc-auth%2F/i.test(body.toString());

function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse) {
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  upstream.end(body);
}

export async function startRealWordPress(options: RealWordPressOptions = {}): Promise<RealWordPress> {
  const work = mkdtempSync(join(tmpdir(), 'lb-real-wp-'));
  const dir = join(work, 'wp');
  const database = `lb_wp_${process.pid}_${randomBytes(3).toString('hex')}`;
  let woo: URL | undefined;
  let php: ChildProcess | undefined;
  const phpPort = await freePort();
  const front = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      const wooRoute =
        path.startsWith('/wc-auth/') || path.startsWith('/wp-json/') || isWooCommerceLogin(req.method, path, body);
      if (wooRoute && !woo) return void res.writeHead(404).end();
      forward(wooRoute ? woo! : new URL(`http://127.0.0.1:${phpPort}`), req, body, res);
    });
  });
  const url = `http://127.0.0.1:${await listening(front)}`;

  const stop = async () => {
    // Its own process group: the server and the workers it forked stop together.
    if (php?.pid) {
      try {
        process.kill(-php.pid);
      } catch {
        // Already gone.
      }
    }
    front.closeAllConnections();
    await new Promise((resolve) => front.close(resolve));
    mysql(`DROP DATABASE IF EXISTS ${database}`);
    if (!process.env.KEEP_WORDPRESS) rmSync(work, { recursive: true, force: true });
  };
  try {
    // cp -L: a copy of what Debian's links point to (the CA bundle, the bundled libraries), never the links, so
    // nothing written in the copy lands in the system's files.
    const copied = spawnSync('cp', ['-rL', DEBIAN_WORDPRESS, dir], { encoding: 'utf8' });
    if (copied.status !== 0) throw new Error(`could not copy ${DEBIAN_WORDPRESS}: ${copied.stderr}`);
    symlinkSync(PLUGIN, join(dir, 'wp-content/plugins/loyalty-bridge'));
    // Debian's WordPress checks certificates against the system's bundle (its patch to WP_Http); a must-use plugin
    // points it at that bundle and the certificates this site is to trust, as a site behind a company's own
    // authority is set up. Written in the copy only.
    mkdirSync(join(dir, 'wp-content/mu-plugins'));
    writeFileSync(
      join(dir, 'wp-content/mu-plugins/ca-bundle.crt'),
      [readFileSync(SYSTEM_CAS, 'utf8'), ...(options.trust ?? [])].join('\n'),
    );
    writeFileSync(
      join(dir, 'wp-content/mu-plugins/trusted-certificates.php'),
      `<?php
add_filter( 'http_request_args', static function ( array $args ): array {
	$args['sslcertificates'] = __DIR__ . '/ca-bundle.crt';
	return $args;
} );
`,
    );
    // wp_mail() caught by WordPress's own pre_wp_mail filter (5.7+) into a file the test reads: the site has no mailer.
    writeFileSync(
      join(dir, 'wp-content/mu-plugins/caught-mail.php'),
      `<?php
add_filter( 'pre_wp_mail', static function ( $sent, array $mail ) {
	file_put_contents( ${JSON.stringify(join(work, 'mail.jsonl'))}, json_encode( $mail ) . "\\n", FILE_APPEND | LOCK_EX );
	return true;
}, 10, 2 );
`,
    );
    const created = mysql(`CREATE DATABASE ${database}`);
    if (created.status !== 0) throw new Error(`MariaDB: ${created.stderr}`);
    const salt = () => randomBytes(32).toString('base64');
    writeFileSync(
      join(dir, 'wp-config.php'),
      `<?php
define( 'DB_NAME', '${database}' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '127.0.0.1' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'WP_HOME', '${url}' );
define( 'WP_SITEURL', '${url}' );
define( 'WP_DEBUG', true );
define( 'WP_DEBUG_LOG', '${work}/debug.log' );
define( 'WP_DEBUG_DISPLAY', false );
$table_prefix = 'wp_';
${['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'].map((name) => `define( '${name}', '${salt()}' );`).join('\n')}
defined( 'ABSPATH' ) || define( 'ABSPATH', __DIR__ . '/' );
require_once ABSPATH . 'wp-settings.php';
`,
    );
    const installed = spawnSync('php', [STEPS, dir, 'install', url], { encoding: 'utf8' });
    if (installed.status !== 0) throw new Error(`WordPress did not install: ${installed.stderr.slice(-500)}`);
    const rewardsPage = installed.stdout.trim().split('\n').pop()!;
    // Several workers: a page's script asks the identity route while the page itself may still be served.
    php = spawn('php', ['-S', `127.0.0.1:${phpPort}`, '-t', dir], {
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' },
      stdio: 'ignore',
      detached: true,
    });
    for (let tries = 0; ; tries++) {
      const up = await fetch(`${url}/wp-login.php`).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (up) break;
      if (tries > 50) throw new Error('PHP’s built-in server did not answer');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      url,
      rewardsPage,
      wooCommerceAt: (at) => void (woo = new URL(at)),
      pluginNotices: () =>
        existsSync(join(work, 'debug.log'))
          ? readFileSync(join(work, 'debug.log'), 'utf8')
              .split('\n')
              .filter((line) => line.includes('plugins/loyalty-bridge'))
          : [],
      mails: () =>
        existsSync(join(work, 'mail.jsonl'))
          ? readFileSync(join(work, 'mail.jsonl'), 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((line) => JSON.parse(line) as { to: string | string[]; subject: string; message: string })
          : [],
      cli: async (...args) => {
        try {
          return (await run('php', [STEPS, dir, ...args], { encoding: 'utf8' })).stdout.trim();
        } catch (error) {
          const said = String((error as { stderr?: string }).stderr ?? error).slice(-500);
          throw new Error(`wp-cli.php ${args[0]}: ${said}`, { cause: error });
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
