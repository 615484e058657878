// `npm run package`: gaugeway_<version>_all.deb with dpkg-deb, from the built checkout.
// Layout: the app and its production dependencies in /usr/lib/gaugeway, the command in
// /usr/bin/gaugeway, the unit in /lib/systemd/system, the commented reference config as
// the conffile /etc/gaugeway/config.yaml (an operator's edits survive upgrades). The unit
// runs as a DynamicUser with StateDirectory=gaugeway, so no user is created; maintainer
// scripts reload systemd but never enable or start the service on install, and never
// touch /var/lib/gaugeway (purging the package leaves the data). The only network use is
// npm's, for the production dependencies (from its cache when it has them).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = process.argv[2] ?? join(root, `gaugeway_${pkg.version}_all.deb`);
const stage = mkdtempSync(join(tmpdir(), 'gaugeway-deb-'));
const app = join(stage, 'usr/lib/gaugeway');

try {
  mkdirSync(app, { recursive: true });
  for (const entry of ['bin', 'dist', 'config', 'package.json', 'package-lock.json', 'README.md', 'LICENSE']) {
    try { cpSync(join(root, entry), join(app, entry), { recursive: true }); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  }
  for (const optional of ['plugins']) {
    try { cpSync(join(root, optional), join(app, optional), { recursive: true }); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  }
  // production dependencies only, as npm resolves them from the lock file
  execFileSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(join(app, 'package-lock.json'));

  mkdirSync(join(stage, 'usr/bin'), { recursive: true });
  symlinkSync('../lib/gaugeway/bin/gaugeway.js', join(stage, 'usr/bin/gaugeway'));

  mkdirSync(join(stage, 'lib/systemd/system'), { recursive: true });
  const unit = readFileSync(join(root, 'systemd/gaugeway.service'), 'utf8')
    .replaceAll('/usr/local/bin/gaugeway', '/usr/bin/gaugeway')
    .replace(/^# Gaugeway as a hardened systemd service\.[\s\S]*?(?=^# Local changes)/m,
      '# Gaugeway as a hardened systemd service, installed by the gaugeway Debian package.\n# Start it with: sudo systemctl enable --now gaugeway\n');
  writeFileSync(join(stage, 'lib/systemd/system/gaugeway.service'), unit);

  mkdirSync(join(stage, 'etc/gaugeway'), { recursive: true });
  cpSync(join(root, 'config/example.yaml'), join(stage, 'etc/gaugeway/config.yaml'));
  // the schema the config's yaml-language-server comment names
  cpSync(join(root, 'config/schema.json'), join(stage, 'etc/gaugeway/schema.json'));

  const debian = join(stage, 'DEBIAN');
  mkdirSync(debian);
  const size = Number(execFileSync('du', ['-sk', stage]).toString().split('\t')[0]);
  writeFileSync(join(debian, 'control'), [
    'Package: gaugeway',
    `Version: ${pkg.version}`,
    'Architecture: all',
    'Section: net',
    'Priority: optional',
    'Maintainer: Gaugeway developers <gaugeway@localhost>',
    `Installed-Size: ${size}`,
    // Node 20 or newer: Debian 13 ships it; on Debian 12 take NodeSource's nodejs (docs/install.md)
    'Depends: nodejs (>= 20), systemd',
    'Homepage: https://gaugeway.invalid/',
    `Description: ${pkg.description}`,
    ' A self-hosted metrics service and gateway appliance: push measurements (tagged',
    ' and source-based Librato v1 API), LevelDB storage with rollups, series queries,',
    ' composite metrics, spaces and charts, annotations. Runs as a hardened systemd',
    ' service; the package neither enables nor starts it.',
    '',
  ].join('\n'));
  writeFileSync(join(debian, 'conffiles'), '/etc/gaugeway/config.yaml\n/etc/gaugeway/schema.json\n');
  const script = (name, body) => {
    writeFileSync(join(debian, name), `#!/bin/sh\n# ${name} of the gaugeway package: never touches /var/lib/gaugeway.\nset -e\n${body}\nexit 0\n`);
    chmodSync(join(debian, name), 0o755);
  };
  script('postinst', [
    'if [ "$1" = configure ] && [ -d /run/systemd/system ]; then',
    '  systemctl daemon-reload >/dev/null || true',
    '  if systemctl is-active --quiet gaugeway; then',
    '    # an upgrade: the running service gets the new code',
    '    systemctl try-restart gaugeway >/dev/null || true',
    '  elif [ -z "$2" ]; then',
    '    echo "gaugeway installed. Edit /etc/gaugeway/config.yaml, then: sudo systemctl enable --now gaugeway"',
    '  fi',
    'fi',
  ].join('\n'));
  script('prerm', [
    'if [ "$1" = remove ] && [ -d /run/systemd/system ]; then',
    '  systemctl disable --now gaugeway >/dev/null 2>&1 || true',
    'fi',
  ].join('\n'));
  script('postrm', [
    'if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null || true; fi',
    'if [ "$1" = purge ]; then',
    '  echo "gaugeway purged; its data stays in /var/lib/gaugeway (really /var/lib/private/gaugeway): remove it yourself if you want it gone"',
    'fi',
  ].join('\n'));

  chmodSync(stage, 0o755); // mkdtemp made it private; it becomes / of the package
  execFileSync('fakeroot', ['dpkg-deb', '--build', '-Zxz', '--root-owner-group', stage, out], { stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(out);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
