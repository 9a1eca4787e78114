// oxo serve — the browser side: native ES modules, no build step; talks
// only to /api (see the server's API). This entry wires each feature's
// listeners, then shows the view the path asks for.
import { wire as wireDom } from './dom.js';
import { wire as wireNet } from './net.js';
import { wire as wireStart } from './start.js';
import { wire as wireLobby } from './lobby.js';
import { wire as wireName } from './name.js';
import { wire as wireBoard } from './board.js';
import { wire as wireGame } from './game.js';
import { wire as wireInvite } from './invite.js';
import { wire as wireRecord } from './record.js';
import { wire as wireEndings } from './endings.js';
import { wire as wireReview } from './review.js';
import { wire as wireClock } from './clock.js';
import { route, wire as wireRoute } from './route.js';
import { wire as wireAnalysis } from './analysis.js';

for (const wire of [wireNet, wireStart, wireLobby, wireName, wireBoard, wireGame, wireInvite, wireRecord, wireEndings, wireReview, wireClock, wireAnalysis, wireDom, wireRoute]) wire();
route();
