import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import {
  KinesisVideoClient,
  DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand,
} from '@aws-sdk/client-kinesis-video';
import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';
import { LoginPage } from './pages/login-page';
import { TesterEnvSettingPage, TesterExaminingPage, TesterIdentificationPage } from './pages/tester-pages';
import { expectBodyId, expectNoAxeViolations } from './helpers';

const TESTER = 'tester03';
const CHECKER = 'checker01';

interface Channel {
  region: string;
  access_key_id: string;
  secret_access_key: string;
  session_token: string;
  channel_name: string;
  endpoint?: string;
}
interface WireMatching {
  tester_id: number;
  login_id: string;
  signaling_channel: Channel | null;
  /** The ClientId the server chose for the matched checker's viewer: the examinee answers no other. */
  viewer_client_id: string | null;
}

async function apiLogin(request: APIRequestContext, loginId: string): Promise<string> {
  const r = await request.post('/api/v1/login.php', { data: { login_id: loginId, password: 'demo-pass' } });
  const body = (await r.json()) as { result: { access_token: string } };
  return body.result.access_token;
}

/** Polls matching.php as the checker until the tester is assigned with a signaling channel. */
async function waitForAssignment(request: APIRequestContext, token: string): Promise<WireMatching> {
  let found: WireMatching | null = null;
  await expect
    .poll(
      async () => {
        const r = await request.post('/api/v1/matching.php', {
          data: {},
          headers: { Authorization: `Bearer ${token}` },
        });
        const body = (await r.json()) as { result?: { matchings: WireMatching[] } };
        found = body.result?.matchings.find((m) => m.login_id === TESTER && m.signaling_channel) ?? null;
        return found !== null;
      },
      { timeout: 40_000, intervals: [1000] },
    )
    .toBe(true);
  return found!;
}

/** A viewer URL for the stand-in, signed in Node with the SDK's own signer (media-stack.md §1.3). */
async function signedViewerUrl(ch: Channel, clientId: string): Promise<string> {
  const creds = {
    accessKeyId: ch.access_key_id,
    secretAccessKey: ch.secret_access_key,
    sessionToken: ch.session_token,
  };
  const kv = new KinesisVideoClient({
    region: ch.region,
    credentials: creds,
    endpoint: ch.endpoint,
    maxAttempts: 1,
  });
  const d = await kv.send(new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name }));
  const arn = d.ChannelInfo!.ChannelARN!;
  const ep = await kv.send(
    new GetSignalingChannelEndpointCommand({
      ChannelARN: arn,
      SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: 'VIEWER' },
    }),
  );
  const wss = ep.ResourceEndpointList!.find((e) => e.Protocol === 'WSS')!.ResourceEndpoint!;
  const insecure = wss.startsWith('ws://');
  const signer = new SigV4RequestSigner(ch.region, creds);
  const url = await signer.getSignedURL(insecure ? 'wss://' + wss.slice(5) : wss, {
    'X-Amz-ChannelARN': arn,
    'X-Amz-ClientId': clientId,
  });
  return insecure ? 'ws://' + url.slice(6) : url;
}

/** In the viewer page: raw WebSocket + RTCPeerConnection (recvonly), the KVS wire format. */
async function connectViewer(page: Page, url: string): Promise<void> {
  await page.evaluate(async (wsUrl) => {
    const w = window as unknown as { __pc?: RTCPeerConnection; __ws?: WebSocket };
    w.__pc?.close();
    w.__ws?.close();
    const pc = new RTCPeerConnection({ iceServers: [] });
    w.__pc = pc;
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.addTransceiver('audio', { direction: 'recvonly' });
    let video = document.querySelector('video');
    if (!video) {
      video = document.createElement('video');
      video.muted = true;
      video.autoplay = true;
      video.playsInline = true;
      document.body.appendChild(video);
    }
    const v = video;
    pc.ontrack = (e) => {
      if (e.track.kind === 'video') {
        v.srcObject = e.streams[0] ?? new MediaStream([e.track]);
        void v.play().catch(() => undefined);
      }
    };
    const ws = new WebSocket(wsUrl);
    w.__ws = ws;
    const send = (action: string, payload: unknown) =>
      ws.send(JSON.stringify({ action, messagePayload: btoa(JSON.stringify(payload)) }));
    pc.onicecandidate = (e) => {
      if (e.candidate) send('ICE_CANDIDATE', e.candidate.toJSON());
    };
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as { messageType: string; messagePayload?: string };
      if (!msg.messagePayload) return;
      const payload = JSON.parse(atob(msg.messagePayload)) as RTCSessionDescriptionInit & RTCIceCandidateInit;
      if (msg.messageType === 'SDP_ANSWER') void pc.setRemoteDescription(payload);
      if (msg.messageType === 'ICE_CANDIDATE') void pc.addIceCandidate(payload).catch(() => undefined);
    };
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error('viewer socket failed'));
    });
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    send('SDP_OFFER', pc.localDescription!.toJSON());
  }, url);
}

async function framesDecoded(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const pc = (window as unknown as { __pc?: RTCPeerConnection }).__pc;
    if (!pc) return 0;
    let n = 0;
    (await pc.getStats()).forEach((s: { type: string; kind?: string; framesDecoded?: number }) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') n = s.framesDecoded ?? 0;
    });
    return n;
  });
}

async function expectVideoFlowing(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => document.querySelector('video')?.videoWidth ?? 0), { timeout: 20_000 })
    .toBeGreaterThan(0);
  const first = await framesDecoded(page);
  await expect.poll(() => framesDecoded(page), { timeout: 10_000 }).toBeGreaterThan(first);
}

test('tester journey: env-setting → identity check → exam → exam end, publishing live video', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(180_000);
  const webrtc = !process.env.E2E_NO_NETNS;
  await page.context().grantPermissions(['camera', 'microphone']);

  // Start-up and login.
  await page.goto('/s/demo-tester');
  await expect(page).toHaveURL(/\/login$/);
  await new LoginPage(page).login(TESTER);
  await expect(page).toHaveURL(/\/env-setting$/, { timeout: 30_000 });

  // Env setting: devices, popup, terms; Next starts transmission.
  const env = new TesterEnvSettingPage(page);
  await env.expectReady();
  await expect(page.getByTestId('audio-level')).toHaveAttribute('aria-valuenow', /\d+/);
  await expectNoAxeViolations(page);
  await env.agreeAndNext();
  await expect(page).toHaveURL(/\/identification$/);

  // The checker gets the tester assigned with a channel.
  const checkerToken = await apiLogin(request, CHECKER);
  const matching = await waitForAssignment(request, checkerToken);
  expect(matching.signaling_channel).not.toBeNull();
  if (webrtc)
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'live', { timeout: 30_000 });

  // A second browser context joins as a KVS viewer and decodes the examinee's frames.
  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  if (webrtc) {
    await viewer.goto('/close');
    await connectViewer(
      viewer,
      await signedViewerUrl(matching.signaling_channel!, matching.viewer_client_id!),
    );
    await expectVideoFlowing(viewer);
  }

  // Identity: the examinee asks, the checker accepts through the API.
  const ident = new TesterIdentificationPage(page);
  await expect(page.getByTestId('idcard-item')).toBeVisible();
  await expectNoAxeViolations(page);
  await ident.requestCheck();
  // A checker accepts someone it is connected to: the examinee is matched (state 2) once its next poll
  // reports the channel open.
  await expect
    .poll(
      async () => {
        const r = await request.get(`/api/v1/tester/detail.php?tester_id=${matching.tester_id}`, {
          headers: { Authorization: `Bearer ${checkerToken}` },
        });
        return ((await r.json()) as { result?: { status?: number } }).result?.status ?? 0;
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(2);
  const accepted = await request.post('/api/v1/tester/status.php', {
    data: { tester_id: matching.tester_id, status: 3 },
    headers: { Authorization: `Bearer ${checkerToken}` },
  });
  expect(accepted.status()).toBe(200);
  await expect(page).toHaveURL(/\/examining$/, { timeout: 20_000 });
  await expectBodyId(page, 'PRE00004');
  await expect(page.getByTestId('monitoring-label')).toBeVisible();
  await expect(page.getByTestId('exam-notes')).toBeVisible();
  await expectNoAxeViolations(page);

  // Kicking the master's socket reconnects it, and video flows again to a new viewer session.
  if (webrtc) {
    const kick = await request.post('/__kvs/kick', {
      data: { channelName: matching.signaling_channel!.channel_name, role: 'MASTER' },
    });
    expect(kick.status()).toBe(200);
    await expect
      .poll(
        async () => {
          const s = (await (await request.get('/__kvs/state')).json()) as {
            channels: { channelName: string; master: unknown }[];
          };
          return (
            s.channels.find((c) => c.channelName === matching.signaling_channel!.channel_name)?.master != null
          );
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'live', { timeout: 20_000 });
    // The checker's current matching (this script does not poll like a checker page: a matching it let go
    // stale was released, and its viewer credentials with it).
    const current = await waitForAssignment(request, checkerToken);
    await connectViewer(viewer, await signedViewerUrl(current.signaling_channel!, current.viewer_client_id!));
    await expectVideoFlowing(viewer);
  }

  // Exam: notes, the exam system in a popup, finish.
  const exam = new TesterExaminingPage(page);
  await exam.agreeNotes();
  const popup = await exam.openExamSystem();
  await expect(popup).toHaveURL(/\/demo-exam\//);
  await popup.close();
  await expect(page.getByTestId('exam-phase')).toHaveAttribute('data-phase', /examing|interrupted/);
  await exam.finish();
  await expect(page).toHaveURL(/\/exam-end$/, { timeout: 20_000 });
  await expectBodyId(page, 'PRE00005');
  await expect(page.getByTestId('exam-summary')).toBeVisible();
  await expect(page.getByTestId('no-cheating')).toBeVisible();
  await viewerContext.close();
});
