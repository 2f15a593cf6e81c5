import type { Localized } from './model';

/** Words the seeded catalog is made of, in both languages the sandbox serves. */
const l = (en: string, de: string): Localized => ({ en, de });

export const COUNTRIES = [
	{ code: 'DE', name: l('Germany', 'Deutschland') },
	{ code: 'AT', name: l('Austria', 'Österreich') },
	{ code: 'CH', name: l('Switzerland', 'Schweiz') },
	{ code: 'CZ', name: l('Czechia', 'Tschechien') },
];

export const CITIES = [
	{ country: 'DE', name: l('Berlin', 'Berlin') },
	{ country: 'DE', name: l('Munich', 'München') },
	{ country: 'DE', name: l('Hamburg', 'Hamburg') },
	{ country: 'DE', name: l('Cologne', 'Köln') },
	{ country: 'AT', name: l('Vienna', 'Wien') },
	{ country: 'AT', name: l('Salzburg', 'Salzburg') },
	{ country: 'CH', name: l('Zurich', 'Zürich') },
	{ country: 'CZ', name: l('Prague', 'Prag') },
];

export const VENUE_KINDS = ['Konzerthaus', 'Arena', 'Stadttheater'];
export const STREETS = ['Hauptstraße', 'Lindenallee', 'Am Markt', 'Uferweg', 'Bahnhofplatz'];
export const HALL_NAMES = ['Großer Saal', 'Kleiner Saal', 'Studio'];
export const SECTOR_NAMES = ['Parterre', 'Balcony', 'Gallery', 'Box A', 'Box B', 'Dress Circle'];

export const CATEGORIES = [
	{
		name: l('Concert', 'Konzert'),
		genres: [l('Rock', 'Rock'), l('Jazz', 'Jazz'), l('Classical', 'Klassik'), l('Pop', 'Pop')],
	},
	{
		name: l('Theatre', 'Theater'),
		genres: [l('Drama', 'Drama'), l('Opera', 'Oper'), l('Musical', 'Musical')],
	},
	{
		name: l('Sport', 'Sport'),
		genres: [l('Football', 'Fußball'), l('Basketball', 'Basketball'), l('Ice hockey', 'Eishockey')],
	},
	{
		name: l('Exhibition', 'Ausstellung'),
		genres: [l('Modern art', 'Moderne Kunst'), l('Photography', 'Fotografie')],
	},
	{ name: l('Comedy', 'Comedy'), genres: [l('Stand-up', 'Stand-up')] },
];

export const PERFORMERS = [
	'The Northern Lights',
	'Kammerensemble Kreuzberg',
	'Alpine Brass',
	'Velvet Echo',
	'Riverside Quartet',
	'Nora Lind',
	'Elbe Philharmonic',
	'FC Spreeufer',
	'Die Lachmöwen',
	'Atelier Nord',
];

export const TITLES = [
	l('Live in Concert', 'Live im Konzert'),
	l('Winter Tour', 'Wintertournee'),
	l('Gala Night', 'Galaabend'),
	l('Season Opening', 'Saisoneröffnung'),
	l('Farewell Show', 'Abschiedsshow'),
	l('Anniversary Evening', 'Jubiläumsabend'),
];

export function describe(name: Localized, venue: string, city: Localized): Localized {
	return {
		en: `"${name.en}" at ${venue}, ${city.en}. Doors open 60 minutes before the start.`,
		de: `„${name.de}“ in ${venue}, ${city.de}. Einlass 60 Minuten vor Beginn.`,
	};
}
