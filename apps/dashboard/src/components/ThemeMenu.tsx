import { Check, Monitor, Moon, Sun } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { setThemeChoice, type ThemeChoice, useTheme } from '../theme.ts';

const CHOICES: { value: ThemeChoice; label: string; icon: typeof Sun }[] = [
  { value: 'system', label: 'System', icon: Monitor },
  { value: 'light', label: 'Light', icon: Sun },
  { value: 'dark', label: 'Dark', icon: Moon },
];

/** Light, dark, or the system's setting (the default), for this browser. */
export function ThemeMenu() {
  const { choice, theme } = useTheme();
  const Current = theme === 'dark' ? Moon : Sun;
  const label = CHOICES.find((item) => item.value === choice)?.label ?? 'System';
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="icon ghost" aria-label={`Theme: ${label}`} title={`Theme: ${label}`}>
          <Current size={16} aria-hidden="true" />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu-content" align="end" sideOffset={4}>
          <DropdownMenu.Label className="menu-label">Theme</DropdownMenu.Label>
          <DropdownMenu.RadioGroup value={choice} onValueChange={(value) => setThemeChoice(value as ThemeChoice)}>
            {CHOICES.map(({ value, label: name, icon: Icon }) => (
              <DropdownMenu.RadioItem key={value} value={value} className="menu-item">
                <Icon size={14} aria-hidden="true" />
                {name}
                <DropdownMenu.ItemIndicator className="menu-check">
                  <Check size={14} aria-hidden="true" />
                </DropdownMenu.ItemIndicator>
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
