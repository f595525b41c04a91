import { generatedFrontier, stubDaemon } from './run';
const f = generatedFrontier(10000);
void stubDaemon(JSON.stringify(f)).then(({ url }) => console.log(url));
